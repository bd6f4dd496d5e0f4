// An insertion-ordered list of named entries.
//
// FlashInfer-Trace objects (axes, inputs, outputs) are JSON objects whose key order means
// something to people reading them (and to positional kernel arguments), so they are kept
// in file order rather than in a sorted map.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kh {

template <class T>
struct NamedList {
  std::vector<std::pair<std::string, T>> items;

  [[nodiscard]] const T* find(std::string_view name) const {
    for (const auto& [n, v] : items)
      if (n == name) return &v;
    return nullptr;
  }
  [[nodiscard]] bool contains(std::string_view name) const { return find(name) != nullptr; }
  [[nodiscard]] std::size_t size() const { return items.size(); }
  [[nodiscard]] bool empty() const { return items.empty(); }
  auto begin() const { return items.begin(); }
  auto end() const { return items.end(); }
  void add(std::string name, T value) { items.emplace_back(std::move(name), std::move(value)); }
};

}  // namespace kh
