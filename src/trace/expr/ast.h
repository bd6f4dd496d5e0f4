// The syntax tree of a constraint expression (a small subset of Python).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kh::expr {

enum class NodeKind : std::uint8_t {
  integer,    // int_value
  real,       // real_value
  boolean,    // bool_value (True / False)
  name,       // text = identifier (an axis or a tensor)
  unary,      // text = "-", "+" or "not"; children[0]
  binary,     // text = "+", "-", "*", "/", "//", "%", "**", "and", "or"; children[0..1]
  compare,    // chain: children[0] ops[0] children[1] ops[1] children[2] ...
  attribute,  // children[0].text, e.g. x.shape (text = "shape")
  index,      // children[0][children[1]]
  call,       // method call children[0].text(), e.g. x.item() (text = "item")
};

struct Node {
  NodeKind kind = NodeKind::integer;
  std::size_t pos = 0;  // 0-based offset of the node's first character in the source
  std::int64_t int_value = 0;
  double real_value = 0.0;
  bool bool_value = false;
  std::string text;
  std::vector<std::string> ops;  // comparison operators of a chain
  std::vector<std::unique_ptr<Node>> children;
};

// Every identifier the expression mentions, in first-appearance order, without repeats.
[[nodiscard]] std::vector<std::string> collect_names(const Node& root);

}  // namespace kh::expr
