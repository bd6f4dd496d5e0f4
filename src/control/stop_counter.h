// Counts the times this process was stopped and continued by someone other than its
// terminal: SIGSTOP (which no process can catch) and SIGTSTP sent with kill(). A step
// compares the count before and after its evaluation: a solution that froze the
// orchestrator (to outlast its time limit, say) is found out once it is continued. A
// person's Ctrl-Z (SIGTSTP from the terminal) and `fg` are not counted.
#pragma once

#include <cstdint>

namespace kh::control {

// Installs the SIGCONT and SIGTSTP handlers on its first call.
[[nodiscard]] std::uint64_t times_stopped();

}  // namespace kh::control
