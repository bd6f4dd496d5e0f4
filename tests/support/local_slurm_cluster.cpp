#include "support/local_slurm_cluster.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace kh::test {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// Where Debian puts each program; PATH may lack /usr/sbin for a plain user.
std::string find_program(const std::string& name) {
  for (const char* dir : {"/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/sbin", "/usr/local/bin"}) {
    const fs::path p = fs::path(dir) / name;
    if (access(p.c_str(), X_OK) == 0) return p.string();
  }
  return "";
}

// Two distinct ports the kernel just handed out on loopback.
std::array<int, 2> free_ports() {
  std::array<int, 2> fds{};
  std::array<int, 2> ports{};
  for (std::size_t i = 0; i < 2; ++i) {
    fds[i] = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fds[i] < 0 || bind(fds[i], reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        getsockname(fds[i], reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      throw std::runtime_error("cannot find a free port on loopback");
    }
    ports[i] = ntohs(a.sin_port);
  }
  for (const int fd : fds) close(fd);
  return ports;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string user_name() {
  const passwd* pw = getpwuid(getuid());
  return pw != nullptr ? pw->pw_name : "root";
}

bool wait_for_exit(pid_t pid, std::chrono::milliseconds limit) {
  const auto until = Clock::now() + limit;
  while (Clock::now() < until) {
    if (waitpid(pid, nullptr, WNOHANG) != 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

}  // namespace

std::string LocalSlurmCluster::unavailable() {
  std::string missing;
  for (const char* p : {"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo"})
    if (find_program(p).empty()) missing += std::string(missing.empty() ? "" : ", ") + p;
  if (!missing.empty()) {
    return "Slurm is not installed (" + missing +
           " missing): apt-get install slurm-wlm munge, as scripts/setup.sh does";
  }
  if (geteuid() != 0) return "the local Slurm cluster needs root: slurmd launches each job as its user";
  return "";
}

LocalSlurmCluster::LocalSlurmCluster(int cpus, int gpus) {
  std::string pattern = (fs::temp_directory_path() / "kh-slurm-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create " + pattern);
  dir_ = pattern;
  try {
    write_config(cpus, gpus);
    start_daemons();
    wait_for_idle_node();
  } catch (...) {
    const std::string log = logs();
    stop();
    throw std::runtime_error("the local Slurm cluster did not come up:\n" + log);
  }
}

LocalSlurmCluster::~LocalSlurmCluster() { stop(); }

void LocalSlurmCluster::write_config(int cpus, int gpus) {
  for (const char* sub : {"munge", "state", "spool", "log"}) fs::create_directories(dir_ / sub);
  fs::permissions(dir_ / "munge", fs::perms::owner_all, fs::perm_options::replace);
  {
    std::random_device rd;
    std::ofstream key(dir_ / "munge" / "munge.key", std::ios::binary);
    for (int i = 0; i < 256; ++i) {
      const unsigned v = rd();
      key.write(reinterpret_cast<const char*>(&v), sizeof v);
    }
  }
  fs::permissions(dir_ / "munge" / "munge.key", fs::perms::owner_read, fs::perm_options::replace);
  const auto [controller, node] = free_ports();
  controller_port_ = controller;
  node_port_ = node;
  const std::string d = dir_.string();
  std::ofstream out(conf());
  out << "ClusterName=kh" << getpid() << "\n"
      << "SlurmctldHost=localhost(127.0.0.1)\n"
      << "SlurmctldPort=" << controller_port_ << "\nSlurmdPort=" << node_port_ << "\n"
      << "SlurmUser=" << user_name() << "\nSlurmdUser=root\n"
      << "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=" << d << "/munge/munge.socket\n"
      << "StateSaveLocation=" << d << "/state\nSlurmdSpoolDir=" << d << "/spool\n"
      << "SlurmctldPidFile=" << d << "/slurmctld.pid\nSlurmdPidFile=" << d << "/slurmd.pid\n"
      << "SlurmctldLogFile=" << d << "/log/slurmctld.log\nSlurmdLogFile=" << d
      << "/log/slurmd.log\n"
      // No cgroups: linuxproc tracks a job's processes by parentage, task/none binds nothing.
      << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSwitchType=switch/none\nMpiDefault=none\n"
      << "JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n"
      << "JobCompType=jobcomp/none\n"
      << "SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\nSchedulerType=sched/builtin\n"
      // Quick to schedule, quick to notice a lost node; the node's declared CPUs stand.
      << "SchedulerParameters=sched_interval=1,sched_min_interval=0\nMessageTimeout=5\nSlurmctldTimeout=10\n"
      << "SlurmdTimeout=10\nReturnToService=2\nSlurmdParameters=config_overrides\nMinJobAge=300\n"
      << "KillWait=2\nGresTypes=gpu\n"
      << "NodeName=khnode NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=" << cpus
      << " RealMemory=1000 Gres=gpu:" << gpus << " State=UNKNOWN\n"
      << "PartitionName=debug Nodes=khnode Default=YES MaxTime=INFINITE State=UP\n";
  out.close();
  std::ofstream gres(dir_ / "gres.conf");
  // The gpu plugin keeps only GPUs backed by a device file; these stand in for /dev/nvidiaN.
  for (int i = 0; i < gpus; ++i) {
    const fs::path file = dir_ / ("gpu" + std::to_string(i));
    std::ofstream(file).put('\0');
    gres << "NodeName=khnode Name=gpu File=" << file.string() << "\n";
  }
}

void LocalSlurmCluster::start_daemons() {
  const std::string d = dir_.string();
  const std::vector<std::vector<std::string>> commands = {
      {find_program("munged"), "-F", "-f", "--socket=" + d + "/munge/munge.socket",
       "--key-file=" + d + "/munge/munge.key", "--pid-file=" + d + "/munge/munged.pid",
       "--log-file=" + d + "/log/munged.log", "--seed-file=" + d + "/munge/munged.seed"},
      {find_program("slurmctld"), "-D", "-f", conf().string()},
      {find_program("slurmd"), "-D", "-N", "khnode", "-f", conf().string()}};
  const std::array<const char*, 3> logs = {"munged.out", "slurmctld.out", "slurmd.out"};
  const pid_t parent = getpid();
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const fs::path log = dir_ / "log" / logs[i];
    std::vector<char*> argv;
    for (const std::string& a : commands[i]) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const std::string conf_env = "SLURM_CONF=" + conf().string();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      // The daemons die with the test, even one killed with SIGKILL.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(1);
      const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (fd >= 0) {
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
      }
      putenv(const_cast<char*>(conf_env.c_str()));
      execv(argv[0], argv.data());
      _exit(127);
    }
    daemons_.push_back(pid);
    if (i == 0) {
      const auto until = Clock::now() + std::chrono::seconds(10);
      while (!fs::exists(dir_ / "munge" / "munge.socket") && Clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (!fs::exists(dir_ / "munge" / "munge.socket")) throw std::runtime_error("munged did not start");
    }
  }
}

std::string LocalSlurmCluster::env() const { return "SLURM_CONF='" + conf().string() + "' "; }

std::string LocalSlurmCluster::shell(const std::string& command) const {
  const std::string full = env() + "PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH " + command + " 2>&1";
  FILE* pipe = popen(full.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string out;
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  pclose(pipe);
  return out;
}

void LocalSlurmCluster::wait_for_idle_node() const {
  const auto until = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < until) {
    const std::string state = shell("sinfo -h -N -o %T");
    if (state.rfind("idle", 0) == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  throw std::runtime_error("the node never became idle");
}

std::vector<std::string> LocalSlurmCluster::active_jobs() const {
  std::vector<std::string> jobs;
  std::istringstream in(shell("squeue -h -r -t pending,running,configuring,completing,suspended -o %i"));
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line.find("error") == std::string::npos) jobs.push_back(line);
  return jobs;
}

std::vector<pid_t> LocalSlurmCluster::processes_with(const std::string& needle) const {
  const std::string marker = "SLURM_CONF=" + conf().string();
  std::vector<pid_t> out;
  std::error_code ec;  // processes come and go while we look: skip, never throw
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = read_file(entry.path() / "cmdline");
    for (char& c : cmdline)
      if (c == '\0') c = ' ';
    if (cmdline.find(needle) == std::string::npos) continue;
    std::string environ = read_file(entry.path() / "environ");
    for (char& c : environ)
      if (c == '\0') c = '\n';
    if ((environ + "\n").find(marker + "\n") == std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (pid != getpid()) out.push_back(pid);
  }
  return out;
}

std::string LocalSlurmCluster::logs() const {
  std::string out;
  for (const char* f : {"munged.out", "slurmctld.out", "slurmd.out", "slurmctld.log", "slurmd.log"}) {
    std::string text = read_file(dir_ / "log" / f);
    if (text.size() > 3000) text = "..." + text.substr(text.size() - 3000);
    out += std::string("--- ") + f + "\n" + text + "\n";
  }
  return out;
}

void LocalSlurmCluster::stop() noexcept {
  {
    if (!daemons_.empty()) {
      (void)shell("scancel -u " + user_name());
      const auto until = Clock::now() + std::chrono::seconds(10);
      while (!active_jobs().empty() && Clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    for (auto it = daemons_.rbegin(); it != daemons_.rend(); ++it) {
      kill(*it, SIGTERM);
      if (!wait_for_exit(*it, std::chrono::seconds(5))) {
        kill(*it, SIGKILL);
        waitpid(*it, nullptr, 0);
      }
    }
    daemons_.clear();
    // Step daemons, tasks and their workers carry the cluster's SLURM_CONF: none may
    // outlive the test.
    for (int round = 0; round < 20; ++round) {
      const std::vector<pid_t> left = processes_with("");
      if (left.empty()) break;
      for (const pid_t pid : left) kill(pid, SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::error_code ignored;  // best effort: a leftover temp folder harms nothing
    fs::remove_all(dir_, ignored);
  }
}

}  // namespace kh::test
