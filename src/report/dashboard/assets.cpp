#include "report/dashboard/assets.h"

namespace kh::report::dashboard {
namespace {

constexpr std::string_view kStyle = R"css(
:root { --ink: #1d1d1f; --muted: #6b6b70; --line: #e3e3e8; --accent: #0072B2; --good: #00875a; --bad: #c0392b; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: #fafafa; }
header { background: #1d1d1f; color: #fff; padding: 10px 24px; display: flex; gap: 12px; align-items: baseline; }
header a { color: #fff; text-decoration: none; }
header nav span { color: #bbb; }
.brand { font-weight: 700; letter-spacing: 0.02em; }
main { max-width: 1400px; margin: 0 auto; padding: 16px 24px 40px; }
footer { color: var(--muted); text-align: center; padding: 16px; font-size: 12px; }
h1 { font-size: 22px; margin: 8px 0 12px; } h2 { font-size: 18px; margin-top: 28px; } h3 { font-size: 15px; }
a { color: var(--accent); }
table { border-collapse: collapse; background: #fff; margin: 8px 0 16px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f2f2f5; font-weight: 600; }
td.num, th.num { text-align: right; }
.meta { color: var(--muted); }
.status-PASSED { color: var(--good); font-weight: 600; }
.status-fail { color: var(--bad); font-weight: 600; }
.plots { display: flex; flex-wrap: wrap; gap: 12px; }
.plots figure { margin: 0; background: #fff; border: 1px solid var(--line); flex: 1 1 520px; max-width: 680px; }
.plots svg { width: 100%; height: auto; display: block; }
pre { background: #fff; border: 1px solid var(--line); padding: 8px; overflow: auto; max-height: 480px; font-size: 12px; }
pre.diff { padding: 0; }
.diff div { padding: 0 8px; white-space: pre; }
.diff .add { background: #e6ffec; } .diff .del { background: #ffebe9; } .diff .gap { color: var(--muted); background: #f2f2f5; }
ul.tree { list-style: none; padding-left: 18px; border-left: 1px dotted #ccc; }
ul.tree li { margin: 2px 0; }
.badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 11px; background: #eee; margin-left: 4px; }
.badge.promote { background: #d4f5e0; } .badge.reject_restore { background: #fde2e0; } .badge.archive_only { background: #eef; }
.pager a, .pager span { margin-right: 8px; }
.error { color: var(--bad); }
)css";

}  // namespace

std::optional<Asset> find_asset(std::string_view name) {
  if (name == "style.css") return Asset{"text/css; charset=utf-8", kStyle};
  return std::nullopt;
}

}  // namespace kh::report::dashboard
