set -x
/work/main/tools/abtool/abtool run --matrix /work/main/build/kublk-ab/exp-ref/matrix.txt --runtime 400ms --variant upstream -n 4 -p kernel --run-id kk -o /work/main/build/kublk-ab/exp-ref/kk.jsonl
/work/main/tools/abtool/abtool run --matrix /work/main/build/kublk-ab/exp-ref/matrix.txt --runtime 400ms --variant upstream -n 2 -p regbuf,kernel --run-id rk -o /work/main/build/kublk-ab/exp-ref/rk.jsonl
/work/main/tools/abtool/abtool run --matrix /work/main/build/kublk-ab/exp-ref/matrix.txt --runtime 400ms --variant upstream -n 2 -p regbuf,kernel --ramp 1s --run-id rk-ramp1s -o /work/main/build/kublk-ab/exp-ref/rk-ramp1s.jsonl
/work/main/tools/abtool/abtool run --matrix /work/main/build/kublk-ab/exp-ref/matrix.txt --runtime 400ms --variant upstream -n 2 -p copy,kernel --run-id ck -o /work/main/build/kublk-ab/exp-ref/ck.jsonl
