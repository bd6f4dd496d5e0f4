// A strict little XML checker for the tests: elements nest and close, attributes are
// name="value", text holds no bare '<' or '&'. Counts elements by name and by class.
#pragma once

#include <map>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

namespace kh::report::test {

struct XmlFacts {
  std::map<std::string, int> elements;  // name -> count
  std::vector<std::string> classes;     // every class attribute, in order
  std::string root;
  [[nodiscard]] int with_class(const std::string& word) const {
    int n = 0;
    for (const std::string& c : classes) {
      if ((" " + c + " ").find(" " + word + " ") != std::string::npos) ++n;
    }
    return n;
  }
};

inline void check_text(const std::string& text) {
  static const std::regex entity("&(amp|lt|gt|quot|#39);");
  const std::string stripped = std::regex_replace(text, entity, "");
  if (stripped.find('&') != std::string::npos) throw std::runtime_error("bare & in: " + text.substr(0, 80));
}

// Throws std::runtime_error naming the first problem.
inline XmlFacts check_xml(const std::string& doc) {
  static const std::regex attr(R"re(\s+([A-Za-z_:][-A-Za-z0-9_:.]*)="([^"<]*)")re");
  static const std::regex name(R"re(^[A-Za-z_][-A-Za-z0-9_:.]*)re");
  XmlFacts facts;
  std::vector<std::string> open;
  std::size_t i = 0;
  while (i < doc.size()) {
    const std::size_t lt = doc.find('<', i);
    check_text(doc.substr(i, lt == std::string::npos ? std::string::npos : lt - i));
    if (lt == std::string::npos) break;
    const std::size_t gt = doc.find('>', lt);
    if (gt == std::string::npos) throw std::runtime_error("unclosed tag");
    std::string tag = doc.substr(lt + 1, gt - lt - 1);
    i = gt + 1;
    if (!tag.empty() && tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1))
        throw std::runtime_error("mismatched </" + tag.substr(1) + ">");
      open.pop_back();
      continue;
    }
    const bool self_closing = !tag.empty() && tag.back() == '/';
    if (self_closing) tag.pop_back();
    std::smatch m;
    if (!std::regex_search(tag, m, name)) throw std::runtime_error("bad tag <" + tag + ">");
    const std::string element = m.str(0);
    std::string rest = tag.substr(element.size());
    for (std::sregex_iterator it(rest.begin(), rest.end(), attr), end; it != end; ++it) {
      check_text((*it)[2].str());
      if ((*it)[1].str() == "class") facts.classes.push_back((*it)[2].str());
    }
    if (!std::regex_replace(rest, attr, "").empty())
      throw std::runtime_error("bad attributes in <" + tag + ">");
    if (facts.root.empty()) facts.root = element;
    ++facts.elements[element];
    if (!self_closing) open.push_back(element);
  }
  if (!open.empty()) throw std::runtime_error("unclosed <" + open.back() + ">");
  return facts;
}

}  // namespace kh::report::test
