/work/main/tools/abtool/abtool run -n 4 --runtime 200ms --seed 1 --variant upstream --run-id n8-200ms -p copy,regbuf,kernel -o /work/main/build/kublk-ab/exp-n8/trials.jsonl
