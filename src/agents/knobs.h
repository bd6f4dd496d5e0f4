// Knobs: compile-time parameters a solution declares for the tuner to explore.
//
// In any source file, one line per knob:
//     // kh:param BLOCK in {64,128,256}  optional description
// backed in the code by `#ifndef BLOCK / #define BLOCK 128 / #endif`, whose value is
// the knob's default. A solution JSON may also list them:
//     "knobs": [{"name": "BLOCK", "values": [64, 128, 256]}]
// A setting becomes `#define NAME VALUE` lines at the top of the entry file, so each
// variant is an ordinary solution with its own content hash (and build-cache entry).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "trace/solution.h"

namespace kh::agents {

struct Knob {
  std::string name;
  std::vector<std::string> values;
  std::string default_value;  // from the #ifndef block, else the first value
  std::string description;
  std::string where;  // "file:line" of the declaration
};

using KnobSetting = std::vector<std::pair<std::string, std::string>>;  // name -> value, in knob order

// Every knob of `s`, in declaration order. Throws kh::Error naming file and line for a
// malformed declaration, a knob declared twice, or a default outside its values.
[[nodiscard]] std::vector<Knob> parse_knobs(const Solution& s);

// The defaults of every knob.
[[nodiscard]] KnobSetting default_setting(const std::vector<Knob>& knobs);

// `s` with `setting` compiled in: #define lines before the entry file's first line, and
// a name that says which ("rmsnorm_baseline_cpp+ROWS=4,VEC=8").
[[nodiscard]] Solution with_knobs(const Solution& s, const KnobSetting& setting);

// `s` without a setting that with_knobs compiled in: the leading `#define NAME VALUE`
// lines of knobs `s` declares are dropped from the entry file and the "+..." suffix from
// the name, so that a variant of a variant defines each knob once.
[[nodiscard]] Solution without_knobs(const Solution& s);

// Up to `limit` settings of the full grid, defaults first, in a fixed order (the
// last knob varies fastest), so a resumed run proposes the same ones.
[[nodiscard]] std::vector<KnobSetting> knob_grid(const std::vector<Knob>& knobs, std::size_t limit);

// The settings one step away from `from`: one knob moved to the value before or after
// its current one.
[[nodiscard]] std::vector<KnobSetting> knob_neighbours(const std::vector<Knob>& knobs,
                                                       const KnobSetting& from);

}  // namespace kh::agents
