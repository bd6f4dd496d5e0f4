# Does NVML see the CUDA contexts of this container's processes, under this namespace's PIDs?
O=$OUT/c5; mkdir -p "$O"
{
python3 - <<'PY' &
import torch, os, time
x = torch.ones(1, device="cuda"); torch.cuda.synchronize()
print("child pid", os.getpid(), "ppid", os.getppid(), flush=True)
time.sleep(12)
PY
CH=$!
sleep 8
echo "shell pid $$ child bg pid $CH"
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv
nvidia-smi
pip install --no-index --no-deps -q .devpack/fi-wheels/nvidia_ml_py-*.whl 2>&1 | tail -1
python3 -c '
import pynvml as n
n.nvmlInit(); h=n.nvmlDeviceGetHandleByIndex(0)
for f in ("nvmlDeviceGetComputeRunningProcesses","nvmlDeviceGetGraphicsRunningProcesses"):
    try: print(f, [(p.pid,p.usedGpuMemory) for p in getattr(n,f)(h)])
    except Exception as e: print(f, "error", e)
try: print("accounting", n.nvmlDeviceGetAccountingMode(h))
except Exception as e: print("accounting error", e)
'
cat /proc/self/status | grep -E "^NSpid|^Pid"
wait
} > "$O/probe.txt" 2>&1
cat "$O/probe.txt"
