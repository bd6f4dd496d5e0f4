#include "eval/wire/worker_payload.h"

#include <fmt/format.h>

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

Message timed_reply(std::uint64_t request_id, const TimedLoopResult& r, ordered_json fields) {
  ordered_json samples = ordered_json::array();
  samples.get_ref<ordered_json::array_t&>().reserve(r.samples.size());
  for (const TimedSample& s : r.samples) {
    ordered_json one = ordered_json::object();
    // Sized once: an ordered_json object deep-copies its members each time it grows.
    one.get_ref<ordered_json::object_t&>().reserve(7);
    one["ms"] = s.ms;
    one["event_ms"] = s.event_ms;
    one["call_ms"] = s.call_ms;
    one["activities"] = s.activities;
    one["valid"] = s.valid;
    one["clock_mhz"] = s.clock_mhz;
    one["set"] = s.input_set;
    samples.push_back(std::move(one));
  }
  ordered_json slots = ordered_json::array();
  for (const TimedOutputSlot& o : r.slots) {
    slots.push_back(
        {{"slot", o.slot}, {"iteration", o.iteration}, {"set", o.input_set}, {"hashes", o.hashes}});
  }
  fields.get_ref<ordered_json::object_t&>().reserve(fields.size() + 8);
  fields["timer"] = r.timer;
  fields["timer_note"] = r.timer_note;
  fields["samples"] = std::move(samples);
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
  return Message::make(measurement::kTime, request_id, std::move(fields));
}

std::vector<TimedSample> samples_from_json(const ordered_json& samples) {
  std::vector<TimedSample> out;
  for (const ordered_json& j : samples) {
    TimedSample s;
    s.ms = j.value("ms", 0.0);
    s.event_ms = j.value("event_ms", -1.0);
    s.call_ms = j.value("call_ms", -1.0);
    s.activities = j.value("activities", 0);
    s.valid = j.value("valid", false);
    s.clock_mhz = j.value("clock_mhz", 0.0);
    s.input_set = j.value("set", 0);
    out.push_back(s);
  }
  return out;
}

}  // namespace kh
