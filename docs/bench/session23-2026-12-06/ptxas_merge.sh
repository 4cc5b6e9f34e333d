#!/bin/bash
# ptxas registers of MergeChunksKernel at e7f0938 and at HEAD, sm_90, with the build's own flags.
cd "$(dirname "$0")/../../.."
git show e7f0938:kernels/cuda/attention/decode_merge.cu > /tmp/decode_merge_old.cu
python3 - <<'PY'
import json,os,subprocess,re
root=os.getcwd()
cc=json.load(open('build/compile_commands.json'))
e=[x for x in cc if x['file'].endswith('decode_merge.cu')][0]
for name,src in (('e7f0938','/tmp/decode_merge_old.cu'),('HEAD',e['file'])):
    cmd=re.sub(r'-o \S+','-o /tmp/merge_%s.o'%name,e['command'].replace(' -c ',' -Xptxas -v -c ')).replace(e['file'],src)
    cmd=cmd.replace(' -c /tmp/decode_merge_old.cu',' -I'+root+' -c /tmp/decode_merge_old.cu')
    r=subprocess.run(cmd,shell=True,cwd=e['directory'],capture_output=True,text=True)
    lines=(r.stderr+r.stdout).splitlines()
    for i,l in enumerate(lines):
        if "MergeChunksKernel" in l and "Compiling entry" in l:
            arch=l.split("for '")[-1].rstrip("'")
            print(name, arch, ' / '.join(x.split('info    : ')[-1].strip() for x in lines[i+1:i+4] if 'spill' in x or 'registers' in x))
PY
