# Registers ptxas gives each kernel of one .cu file: python3 ptxas_registers.py REPO_ROOT FILE (recompiles
# that file from REPO_ROOT/build/compile_commands.json with -Xptxas -v into /tmp/ru.o; prints "REGS ARCH kernel").
import json,subprocess,sys,re
root=sys.argv[1]; f=sys.argv[2]
cc=json.load(open(root+'/build/compile_commands.json'))
for c in cc:
    if c['file'].endswith(f):
        cmd=c['command'].replace('/usr/bin/ccache ','')
        cmd=re.sub(r' -o \S+',' -o /tmp/ru.o',cmd)+' -Xptxas -v'
        r=subprocess.run(cmd,shell=True,cwd=c['directory'],capture_output=True,text=True)
        out=r.stderr
        fn=None
        for line in out.splitlines():
            m=re.search(r"Compiling entry function '(\S+)' for '(\S+)'",line)
            if m: fn=m.group(1); arch=m.group(2)
            m=re.search(r"Used (\d+) registers",line)
            if m and fn: print(m.group(1), arch, fn); fn=None
