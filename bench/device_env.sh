# Sourced by the device scripts, from the repository root: CUDA's tools and libraries
# (CUPTI included) on the paths, the carried pack (device-build) standing in for
# build/, and the pack's shared libraries (cpp-httplib and its dependencies) after the
# system's, so that they only fill what the GPU host lacks.
export PATH="/usr/local/cuda/bin:$PATH"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ ! -f build/CMakeCache.txt ] && [ -f device-build/CMakeCache.txt ]; then rm -rf build && ln -s device-build build; fi
[ -d build/lib ] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$(cd build/lib && pwd)"
