set -x
/work/main/tools/abtool/abtool run --runtime 400ms --variant upstream --matrix /work/main/build/kublk-ab/exp-ref2/matrix.txt -n 4 -p kernel --run-id kk -o /work/main/build/kublk-ab/exp-ref2/kk.jsonl
/work/main/tools/abtool/abtool run --runtime 400ms --variant upstream --matrix /work/main/build/kublk-ab/exp-ref2/matrix.txt -n 2 -p regbuf,kernel --run-id rk -o /work/main/build/kublk-ab/exp-ref2/rk.jsonl
/work/main/tools/abtool/abtool run --runtime 400ms --variant upstream --matrix /work/main/build/kublk-ab/exp-ref2/matrix-m.txt -n 4 -p kernel --run-id mk -o /work/main/build/kublk-ab/exp-ref2/mk.jsonl
/work/main/tools/abtool/abtool run --runtime 400ms --variant upstream --matrix /work/main/build/kublk-ab/exp-ref2/matrix-m.txt -n 2 -p regbuf,kernel --run-id mrk -o /work/main/build/kublk-ab/exp-ref2/mrk.jsonl
/work/main/tools/abtool/abtool run --runtime 400ms --variant upstream --matrix /work/main/build/kublk-ab/exp-ref2/matrix-2m.txt -n 4 -p kernel --run-id k2m -o /work/main/build/kublk-ab/exp-ref2/k2m.jsonl
