set -x
for tr in 0 1; do
for k in orig sq4; do
/work/main/tools/abtool/abtool run --matrix /work/main/build/kublk-ab/exp-sq/matrix.txt -n 1 --seed $((1+tr)) --boot $tr --runtime 400ms --variant upstream-$k --kublk /work/main/build/scratch/kublk-nolink/kublk-$k -p kublk-z,kublk-auto_zc,kublk-batch -o /work/main/build/kublk-ab/exp-sq/trials.jsonl
done
/work/main/tools/abtool/abtool run --matrix /work/main/build/kublk-ab/exp-sq/matrix.txt -n 1 --seed $((1+tr)) --boot $tr --runtime 400ms --variant upstream -p regbuf,autobuf,batch -o /work/main/build/kublk-ab/exp-sq/trials.jsonl
done
