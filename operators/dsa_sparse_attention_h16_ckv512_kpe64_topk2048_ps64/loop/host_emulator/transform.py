# Turns a candidate kernel.cu into host C++ for the emulator (see run.sh).
import re, sys
src = open(sys.argv[1]).read()
src = src.replace('#include <cuda_bf16.h>', '#include "emu.h"')
def match_paren(s, i):  # s[i] == '('
    depth = 0
    while True:
        if s[i] == '(': depth += 1
        elif s[i] == ')':
            depth -= 1
            if depth == 0: return i
        i += 1
def drop_fn(s, sig):
    i = s.find(sig)
    if i < 0: return s
    ls = s.rfind('\n', 0, i) + 1
    prev = s.rfind('\n', 0, ls - 1) + 1
    if s[prev:ls].startswith('template'): ls = prev
    j = s.index('{', i); depth = 0
    while True:
        if s[j] == '{': depth += 1
        elif s[j] == '}':
            depth -= 1
            if depth == 0: break
        j += 1
    return s[:ls] + s[j+1:]
for sig in ['void mma_bf16(', 'void copy_async16(', 'void commit_async(', 'void wait_async(', 'void ldsm_x4(', 'void ldsm_x4_trans(', 'void wait_staged(']:
    src = drop_fn(src, sig)
src = re.sub(r'asm volatile\("griddepcontrol[^\n]*\n', '', src)
src = src.replace('asm volatile("cp.async.commit_group;\\n" ::);', '')
src = src.replace('wait_staged<', 'wait_async<')
src = src.replace('extern __shared__ __align__(16) unsigned char smem[];', 'unsigned char* smem = g_smem;')
src = re.sub(r'__launch_bounds__\([^)]*\)', '', src)
src = re.sub(r'\b__global__\b|\b__device__\b|\b__forceinline__\b', '', src)
src = re.sub(r'\b__shared__\b', 'static', src)
src = src.replace('keep_pool_memory_mapped();\n  void', 'void')
src = re.sub(r'cudaMallocAsync\(&scratch, (.*?), stream\)', r'((scratch = emu_poison_malloc(\1)) ? cudaSuccess : cudaErrorMemoryAllocation)', src)
src = src.replace('cudaFreeAsync(scratch, stream);', 'std::free(scratch);')
src = re.sub(r'cudaFuncSetAttribute\([^;]*;', '', src)
src = src.replace('cudaGetLastError() == cudaSuccess ? 0 : 3', '0')
while True:
    m = re.search(r'(\w+)<<<', src)
    if not m: break
    k = m.group(1)
    e = src.index('>>>', m.end())
    cfg = src[m.end():e]
    parts = [p.strip() for p in re.split(r',(?![^()]*\))', cfg)]
    a0 = e + 3
    a1 = match_paren(src, a0)
    args = src[a0+1:a1]
    src = src[:m.start()] + f'emu_launch({parts[0]}, {parts[1]}, [&] {{ {k}({args}); }})' + src[a1+1:]
i = src.find('cudaLaunchKernelEx(')
if i >= 0:
    j = match_paren(src, i + len('cudaLaunchKernelEx'))
    inner = src[i + len('cudaLaunchKernelEx('):j]
    _, k, rest = [x.strip() for x in inner.split(',', 2)]
    src = src[:i] + f'(emu_launch(config.gridDim.x, config.blockDim.x, [&] {{ {k}({rest}); }}), cudaSuccess)' + src[j+1:]
if re.search(r'\basm\b', src): print('leftover asm', file=sys.stderr)
open(sys.argv[2], 'w').write(src)
