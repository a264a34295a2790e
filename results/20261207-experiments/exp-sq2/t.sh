set -x
for tr in 0 1; do
for k in sq4nolink; do
/work/main/tools/abtool/abtool run --matrix /work/main/build/kublk-ab/exp-sq2/matrix.txt -n 1 --seed $((1+tr)) --boot $tr --runtime 400ms --variant upstream-$k --kublk /work/main/build/scratch/kublk-nolink/kublk-$k -p kublk-z -o /work/main/build/kublk-ab/exp-sq2/trials.jsonl
done
done
