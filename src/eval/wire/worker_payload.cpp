#include "eval/wire/worker_payload.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>

#include "error/error.h"
#include "eval/wire/measurement_protocol.h"
#include "eval/workload_shapes.h"

namespace kh {

ordered_json describe_tensors(const NamedList<TensorSpec>& specs, const std::vector<TensorLayout>& t) {
  ordered_json out = ordered_json::array();
  std::size_t i = 0;
  for (const auto& [name, spec] : specs) {
    out.push_back({{"name", name},
                   {"dtype", std::string(dtype_name(t[i].dtype))},
                   {"shape", t[i].shape},
                   {"nbytes", t[i].nbytes}});
    ++i;
  }
  return out;
}

std::vector<TensorLayout> output_layouts(const Definition& definition, const AxisValues& axes) {
  std::vector<TensorLayout> out;
  for (const auto& [name, spec] : definition.outputs) {
    std::vector<std::int64_t> shape = concrete_shape(spec, axes, name);
    const std::size_t nbytes = dtype_storage_bytes(spec.dtype, checked_numel(spec.dtype, shape));
    out.push_back({spec.dtype, std::move(shape), nbytes, spec.is_scalar()});
  }
  return out;
}

std::vector<HostTensor> split_tensors(const ordered_json& description, std::span<const std::byte> payload,
                                      std::size_t& offset, const std::vector<TensorLayout>& expected) {
  if (!description.is_array() || description.size() != expected.size()) {
    throw Error(Location{"", 0, "reply.outputs"},
                fmt::format("worker described {} outputs, expected {}", description.size(), expected.size()));
  }
  std::vector<HostTensor> out;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const ordered_json& d = description[i];
    const std::string name = d.value("name", std::string("?"));
    const TensorLayout& e = expected[i];
    if (d.value("dtype", std::string()) != dtype_name(e.dtype) ||
        d.value("shape", std::vector<std::int64_t>{}) != e.shape ||
        d.value("nbytes", std::size_t{0}) != e.nbytes) {
      throw Error(
          Location{"", 0, "reply.outputs." + name},
          fmt::format("worker returned {} {} of {} bytes; expected {} {} of {} bytes", d.value("dtype", "?"),
                      d.value("shape", ordered_json::array()).dump(), d.value("nbytes", 0),
                      dtype_name(e.dtype), ordered_json(e.shape).dump(), e.nbytes));
    }
    if (offset + e.nbytes > payload.size()) {
      throw Error(Location{"", 0, "reply.payload"}, fmt::format("payload too short for output '{}'", name));
    }
    out.push_back(HostTensor::copy_of(e.dtype, e.shape, payload.subspan(offset, e.nbytes)));
    offset += e.nbytes;
  }
  return out;
}

ordered_json lingering_to_json(const LingeringWork& w) {
  return {{"cpu_ms", w.cpu_ms},
          {"threads_ended", w.threads_ended},
          {"threads_started", w.threads_started},
          {"periods", w.periods},
          {"periods_with_work", w.periods_with_work}};
}

LingeringWork lingering_from_json(const ordered_json& j) {
  LingeringWork w;
  if (!j.is_object()) return w;
  w.cpu_ms = j.value("cpu_ms", 0.0);
  w.threads_ended = j.value("threads_ended", 0);
  w.threads_started = j.value("threads_started", 0);
  w.periods = j.value("periods", 0);
  w.periods_with_work = j.value("periods_with_work", 0);
  return w;
}

namespace {

// A sample in the payload: its fields as doubles, in this order (integers and the flag
// are exact in a double).
constexpr std::size_t kSampleFields = 7;

void append_doubles(std::vector<std::byte>& out, std::initializer_list<double> values) {
  for (const double v : values) {
    const auto* bytes = reinterpret_cast<const std::byte*>(&v);
    out.insert(out.end(), bytes, bytes + sizeof v);
  }
}

void append_hashes(std::vector<std::byte>& out, const InputSetHashes& sets) {
  for (const auto& set : sets) {
    const auto* bytes = reinterpret_cast<const std::byte*>(set.data());
    out.insert(out.end(), bytes, bytes + set.size() * sizeof(std::uint64_t));
  }
}

// A count read from the peer as a double: a whole number in T's range, or an error.
template <class Int>
Int whole_number(double v, const char* field) {
  if (!(std::trunc(v) == v) || v < static_cast<double>(std::numeric_limits<Int>::min()) ||
      v > static_cast<double>(std::numeric_limits<Int>::max()))
    throw Error(Location{"", 0, std::string("reply.samples.") + field}, fmt::format("{} is not a count", v));
  return static_cast<Int>(v);
}

template <class T>
T read_at(std::span<const std::byte> payload, std::size_t& offset) {
  T value;
  std::memcpy(&value, payload.data() + offset, sizeof value);
  offset += sizeof value;
  return value;
}

InputSetHashes read_hashes(std::span<const std::byte> payload, std::size_t& offset, std::size_t sets,
                           std::size_t per_set) {
  InputSetHashes out(sets, std::vector<std::uint64_t>(per_set));
  for (auto& set : out)
    for (std::uint64_t& h : set) h = read_at<std::uint64_t>(payload, offset);
  return out;
}

}  // namespace

Message timed_reply(std::uint64_t request_id, const TimedLoopResult& r, const InputSetHashes& before,
                    const InputSetHashes& after, ordered_json fields) {
  const std::size_t per_set = before.empty() ? 0 : before.front().size();
  for (const InputSetHashes* sets : {&before, &after}) {
    if (sets->size() != before.size() ||
        std::ranges::any_of(*sets, [&](const auto& set) { return set.size() != per_set; }))
      throw Error("timed_reply: the input sets' hashes before and after the loop differ in shape");
  }
  std::vector<std::byte> payload;
  payload.reserve((r.samples.size() * kSampleFields + 2 * before.size() * per_set) * 8);
  for (const TimedSample& s : r.samples) {
    append_doubles(payload, {s.ms, s.event_ms, s.call_ms, static_cast<double>(s.activities),
                             s.valid ? 1.0 : 0.0, s.clock_mhz, static_cast<double>(s.input_set)});
  }
  append_hashes(payload, before);
  append_hashes(payload, after);
  ordered_json slots = ordered_json::array();
  for (const TimedOutputSlot& o : r.slots) {
    slots.push_back(
        {{"slot", o.slot}, {"iteration", o.iteration}, {"set", o.input_set}, {"hashes", o.hashes}});
  }
  // Sized once: an ordered_json object deep-copies its members each time it grows.
  fields.get_ref<ordered_json::object_t&>().reserve(fields.size() + 8);
  fields["timer"] = r.timer;
  fields["timer_note"] = r.timer_note;
  fields["bulk"] = {{"samples", r.samples.size()}, {"sets", before.size()}, {"hashes_per_set", per_set}};
  fields["stop_reason"] = r.stop_reason;
  fields["stray"] = r.stray;
  fields["lingering"] = lingering_to_json(r.lingering);
  fields["phases_ms"] = {{"loop_setup", r.phases.setup_ms},
                         {"loop_teardown", r.phases.teardown_ms},
                         {"poison_and_flush", r.phases.flush_ms},
                         {"timed", r.phases.timed_ms},
                         {"clock", r.phases.clock_ms},
                         {"collect", r.phases.collect_ms},
                         {"warmup", r.phases.warmup_ms},
                         {"lingering_probe", r.phases.probe_ms}};
  fields["slots"] = std::move(slots);
  return Message::make(measurement::kTime, request_id, std::move(fields), std::move(payload));
}

TimedReplyBulk read_timed_bulk(const Message& reply, std::size_t sets, std::size_t hashes_per_set) {
  const auto it = reply.header.find("bulk");
  if (it == reply.header.end() || !it->is_object())
    throw Error(Location{"", 0, "reply.bulk"}, "a time reply without its account of the payload");
  const auto count = [&](const char* key) {
    const auto v = it->find(key);
    if (v == it->end() || !v->is_number_unsigned())
      throw Error(Location{"", 0, std::string("reply.bulk.") + key}, "not a count");
    return v->get<std::size_t>();
  };
  const std::size_t samples = count("samples");
  if (count("sets") != sets || count("hashes_per_set") != hashes_per_set) {
    throw Error(Location{"", 0, "reply.bulk"},
                fmt::format("worker hashed {} input sets of {} inputs; it was given {} of {}", count("sets"),
                            count("hashes_per_set"), sets, hashes_per_set));
  }
  // The counts come from the peer: bound them by the payload before multiplying.
  const std::size_t bytes = reply.payload.size();
  const std::size_t hash_bytes = 2 * sets * hashes_per_set * sizeof(std::uint64_t);
  if (samples > bytes / (kSampleFields * sizeof(double)) ||
      samples * kSampleFields * sizeof(double) + hash_bytes != bytes) {
    throw Error(Location{"", 0, "reply.bulk"},
                fmt::format("a payload of {} bytes for {} samples and {} input hashes", bytes, samples,
                            2 * sets * hashes_per_set));
  }
  TimedReplyBulk out;
  const std::span<const std::byte> payload(reply.payload);
  std::size_t offset = 0;
  out.samples.reserve(samples);
  for (std::size_t i = 0; i < samples; ++i) {
    TimedSample s;
    s.ms = read_at<double>(payload, offset);
    s.event_ms = read_at<double>(payload, offset);
    s.call_ms = read_at<double>(payload, offset);
    s.activities = whole_number<int>(read_at<double>(payload, offset), "activities");
    s.valid = read_at<double>(payload, offset) != 0.0;
    s.clock_mhz = read_at<double>(payload, offset);
    s.input_set = whole_number<int>(read_at<double>(payload, offset), "set");
    out.samples.push_back(s);
  }
  out.before = read_hashes(payload, offset, sets, hashes_per_set);
  out.after = read_hashes(payload, offset, sets, hashes_per_set);
  return out;
}

}  // namespace kh
