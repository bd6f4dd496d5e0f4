#include "archive/trace_line_parser.h"

#include <algorithm>
#include <thread>

#include "archive/document_rows.h"

namespace kh::archive {
namespace {

constexpr unsigned kMostThreads = 8;
constexpr std::size_t kLinesPerThread = 256;  // below this a thread costs more than it saves

void parse_range(std::span<const TextLine> lines, const SetFile& file, RowId import_id,
                 std::span<ParsedTraceLine> out) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const TextLine& line = lines[i];
    try {
      TraceRow row = trace_row(line.text, Location{file.path.string(), line.number, ""});
      row.source = {file.relative, static_cast<std::int64_t>(line.number), import_id};
      out[i].row = std::move(row);
    } catch (const Error& e) {
      out[i].problem = diagnostic_from(e);
    } catch (const std::exception& e) {
      // Anything else a reader throws must not escape a thread (that would terminate
      // the import); it is this line's problem.
      out[i].problem = Diagnostic{Severity::error, Location{file.path.string(), line.number, ""}, e.what()};
    }
  }
}

}  // namespace

std::vector<ParsedTraceLine> parse_trace_lines(std::span<const TextLine> lines, const SetFile& file,
                                               RowId import_id, unsigned threads) {
  std::vector<ParsedTraceLine> out(lines.size());
  if (threads == 0) threads = std::clamp(std::thread::hardware_concurrency(), 1u, kMostThreads);
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, 1 + lines.size() / kLinesPerThread));
  const std::size_t per_thread = (lines.size() + threads - 1) / threads;
  std::vector<std::jthread> workers;
  for (unsigned t = 1; t < threads; ++t) {
    const std::size_t begin = std::min(lines.size(), t * per_thread);
    const std::size_t count = std::min(per_thread, lines.size() - begin);
    workers.emplace_back([&, begin, count] {
      parse_range(lines.subspan(begin, count), file, import_id, std::span(out).subspan(begin, count));
    });
  }
  const std::size_t first = std::min(per_thread, lines.size());
  parse_range(lines.first(first), file, import_id, std::span(out).first(first));
  workers.clear();  // joins: every thread is done with `out` before it is returned
  return out;
}

}  // namespace kh::archive
