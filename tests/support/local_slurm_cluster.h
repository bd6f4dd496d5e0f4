// LocalSlurmCluster: a real one-node Slurm cluster (Debian's slurm-wlm and munge) on
// loopback, for one test: a generated slurm.conf in a fresh temp folder (its own ports,
// state and spool folders, a munge key made for it and munged on its own socket),
// slurmctld and slurmd in the foreground as this process's children, the node idle
// before the constructor returns. The destructor cancels every job, ends every process
// that carries this cluster's SLURM_CONF (daemons, step daemons, tasks, their workers)
// and removes the folder; the daemons also die with the test process (PR_SET_PDEATHSIG)
// if it is killed. Two test processes never share a port, a folder or a cluster.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace kh::test {

class LocalSlurmCluster {
 public:
  // Why no cluster can be started here ("" when one can): the packages are absent, or
  // slurmd cannot launch jobs (it must run as root).
  [[nodiscard]] static std::string unavailable();

  // `gpus`: generic GPU resources the node offers (gres gpu:N, backed by /dev/null-like
  // files), so that --gres=gpu:1 limits how many tasks run at once. `cpus`: what the node
  // declares (Slurm runs at most that many one-CPU tasks side by side). Throws
  // std::runtime_error with the daemons' logs when the node does not come up.
  explicit LocalSlurmCluster(int cpus = 2, int gpus = 2);
  LocalSlurmCluster(const LocalSlurmCluster&) = delete;
  LocalSlurmCluster& operator=(const LocalSlurmCluster&) = delete;
  ~LocalSlurmCluster();

  [[nodiscard]] const std::filesystem::path& dir() const noexcept { return dir_; }
  [[nodiscard]] std::filesystem::path conf() const { return dir_ / "slurm.conf"; }
  // "SLURM_CONF='...' ": the prefix of a shell command that talks to this cluster.
  [[nodiscard]] std::string env() const;
  // Runs a shell command against this cluster; its stdout (and stderr).
  [[nodiscard]] std::string shell(const std::string& command) const;
  // Jobs of this cluster still pending or running (squeue).
  [[nodiscard]] std::vector<std::string> active_jobs() const;
  // PIDs of processes whose command line contains `needle` and whose environment holds
  // this cluster's SLURM_CONF: the cluster's own tasks, found to be killed by a test.
  [[nodiscard]] std::vector<pid_t> processes_with(const std::string& needle) const;

 private:
  void write_config(int cpus, int gpus);
  void start_daemons();
  void wait_for_idle_node() const;
  [[nodiscard]] std::string logs() const;
  void stop() noexcept;

  std::filesystem::path dir_;
  int controller_port_ = 0;
  int node_port_ = 0;
  std::vector<pid_t> daemons_;
};

}  // namespace kh::test
