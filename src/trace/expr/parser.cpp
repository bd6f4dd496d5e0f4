#include "trace/expr/parser.h"

#include <set>
#include <utility>
#include <vector>

#include "trace/expr/lexer.h"

namespace kh::expr {
namespace {

// Deeper nesting than this is rejected so that hostile input cannot overflow the stack;
// real constraints nest two or three levels.
constexpr int kMaxDepth = 100;

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  std::unique_ptr<Node> parse_all() {
    auto root = or_expr();
    if (peek().kind != TokenKind::end) fail("unexpected '" + peek().text + "'");
    return root;
  }

 private:
  // Counts recursion on every path that can recurse, so nesting is bounded.
  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser) : p(parser) {
      if (++p.depth_ > kMaxDepth)
        p.fail("expression nests deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    ~DepthGuard() { --p.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
  };

  const Token& peek() const { return tokens_[at_]; }
  const Token& take() { return tokens_[at_ < tokens_.size() - 1 ? at_++ : at_]; }
  bool is_op(std::string_view op) const { return peek().kind == TokenKind::op && peek().text == op; }
  bool is_word(std::string_view w) const { return peek().kind == TokenKind::name && peek().text == w; }

  [[noreturn]] void fail(const std::string& why) const {
    const Token& t = peek();
    throw SyntaxError(t.pos, t.kind == TokenKind::end ? why + " (at end of expression)" : why);
  }

  void expect_op(std::string_view op) {
    if (!is_op(op))
      fail("expected '" + std::string(op) + "'" +
           (peek().kind == TokenKind::end ? "" : " but found '" + peek().text + "'"));
    take();
  }

  static std::unique_ptr<Node> make(NodeKind kind, std::size_t pos, std::string text = {}) {
    auto n = std::make_unique<Node>();
    n->kind = kind;
    n->pos = pos;
    n->text = std::move(text);
    return n;
  }

  static std::unique_ptr<Node> join(NodeKind kind, std::string op, std::unique_ptr<Node> lhs,
                                    std::unique_ptr<Node> rhs) {
    auto n = make(kind, lhs->pos, std::move(op));
    n->children.push_back(std::move(lhs));
    n->children.push_back(std::move(rhs));
    return n;
  }

  std::unique_ptr<Node> or_expr() {
    DepthGuard guard(*this);
    auto lhs = and_expr();
    while (is_word("or")) {
      take();
      lhs = join(NodeKind::binary, "or", std::move(lhs), and_expr());
    }
    return lhs;
  }

  std::unique_ptr<Node> and_expr() {
    auto lhs = not_expr();
    while (is_word("and")) {
      take();
      lhs = join(NodeKind::binary, "and", std::move(lhs), not_expr());
    }
    return lhs;
  }

  std::unique_ptr<Node> not_expr() {
    DepthGuard guard(*this);
    if (!is_word("not")) return comparison();
    auto n = make(NodeKind::unary, take().pos, "not");
    n->children.push_back(not_expr());
    return n;
  }

  bool at_comparison() const {
    static const std::set<std::string, std::less<>> ops = {"==", "!=", "<", "<=", ">", ">="};
    return peek().kind == TokenKind::op && ops.count(peek().text) != 0;
  }

  std::unique_ptr<Node> comparison() {
    auto first = arith();
    if (!at_comparison()) return first;
    auto chain = make(NodeKind::compare, first->pos);
    chain->children.push_back(std::move(first));
    while (at_comparison()) {
      chain->ops.push_back(take().text);
      chain->children.push_back(arith());
    }
    return chain;
  }

  std::unique_ptr<Node> arith() {
    auto lhs = term();
    while (is_op("+") || is_op("-")) {
      std::string op = take().text;
      lhs = join(NodeKind::binary, op, std::move(lhs), term());
    }
    return lhs;
  }

  std::unique_ptr<Node> term() {
    auto lhs = factor();
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
      std::string op = take().text;
      lhs = join(NodeKind::binary, op, std::move(lhs), factor());
    }
    return lhs;
  }

  std::unique_ptr<Node> factor() {
    DepthGuard guard(*this);
    if (is_op("-") || is_op("+")) {
      const Token& t = take();
      auto n = make(NodeKind::unary, t.pos, t.text);
      n->children.push_back(factor());
      return n;
    }
    return power();
  }

  // Python: -2**2 == -4 and 2**-1 == 0.5, so the exponent is a factor (right-associative).
  std::unique_ptr<Node> power() {
    auto base = postfix();
    if (!is_op("**")) return base;
    take();
    return join(NodeKind::binary, "**", std::move(base), factor());
  }

  std::unique_ptr<Node> postfix() {
    auto n = atom();
    for (;;) {
      if (is_op(".")) {
        take();
        n = attribute(std::move(n));
      } else if (is_op("[")) {
        take();
        auto idx = make(NodeKind::index, n->pos);
        idx->children.push_back(std::move(n));
        idx->children.push_back(or_expr());
        expect_op("]");
        n = std::move(idx);
      } else {
        return n;
      }
    }
  }

  // Only what constraints use: `.shape` and `.item()`. Anything else is rejected here so
  // that a typo shows up when the definition is validated, not when a kernel is run.
  std::unique_ptr<Node> attribute(std::unique_ptr<Node> base) {
    if (peek().kind != TokenKind::name) fail("expected an attribute name after '.'");
    const Token& t = take();
    if (t.text == "shape") {
      auto n = make(NodeKind::attribute, base->pos, "shape");
      n->children.push_back(std::move(base));
      return n;
    }
    if (t.text == "item") {
      expect_op("(");
      expect_op(")");
      auto n = make(NodeKind::call, base->pos, "item");
      n->children.push_back(std::move(base));
      return n;
    }
    throw SyntaxError(t.pos, "unsupported attribute '" + t.text + "' (supported: .shape, .item())");
  }

  std::unique_ptr<Node> atom() {
    const Token& t = peek();
    switch (t.kind) {
      case TokenKind::integer: {
        auto n = make(NodeKind::integer, t.pos);
        n->int_value = take().int_value;
        return n;
      }
      case TokenKind::real: {
        auto n = make(NodeKind::real, t.pos);
        n->real_value = take().real_value;
        return n;
      }
      case TokenKind::name:
        return name_atom();
      case TokenKind::op:
        if (t.text == "(") {
          take();
          auto inner = or_expr();
          expect_op(")");
          return inner;
        }
        fail("unexpected '" + t.text + "'");
      case TokenKind::end:
        fail("expected a value");
    }
    fail("expected a value");
  }

  std::unique_ptr<Node> name_atom() {
    static const std::set<std::string, std::less<>> reserved = {"and", "or",   "not",    "in",  "is",
                                                                "if",  "else", "lambda", "None"};
    const Token& t = peek();
    if (t.text == "True" || t.text == "False") {
      auto n = make(NodeKind::boolean, t.pos);
      n->bool_value = take().text == "True";
      return n;
    }
    if (reserved.count(t.text) != 0) fail("unexpected keyword '" + t.text + "'");
    return make(NodeKind::name, t.pos, take().text);
  }

  std::vector<Token> tokens_;
  std::size_t at_ = 0;
  int depth_ = 0;
};

void collect(const Node& n, std::vector<std::string>& out) {
  if (n.kind == NodeKind::name) {
    for (const auto& seen : out)
      if (seen == n.text) return;
    out.push_back(n.text);
    return;
  }
  for (const auto& c : n.children) collect(*c, out);
}

}  // namespace

std::unique_ptr<Node> parse_expression(std::string_view source) {
  std::vector<Token> tokens = tokenize(source);
  // Long operator chains (a+b+c+...) build deep trees without nesting; cap the length so
  // that evaluating and destroying a tree stays shallow.
  constexpr std::size_t kMaxTokens = 1000;
  if (tokens.size() > kMaxTokens)
    throw SyntaxError(tokens[kMaxTokens].pos,
                      "expression longer than " + std::to_string(kMaxTokens) + " tokens");
  return Parser(std::move(tokens)).parse_all();
}

std::vector<std::string> collect_names(const Node& root) {
  std::vector<std::string> out;
  collect(root, out);
  return out;
}

}  // namespace kh::expr
