// Measurement workers that lie, built twice (tests/eval/CMakeLists.txt), for the tests
// that the orchestrator judges what a worker sends back rather than trusting it:
//
// - tampering_worker: every byte range it sends back for a "timed_outputs" request has
//   the lowest bit of its first byte flipped, a change far inside any tolerance. It
//   stands for a solution that rewrites its timed outputs after the loop ended, before
//   the orchestrator fetches them; the hashes committed as the loop ended must show it.
// - malformed_reply_worker (KH_MALFORMED_CHECK_REPLY): a candidate's check replies give
//   call_ms as a string, as a candidate writing its own frame into the channel could. That
//   must be a verdict, not an exception that ends the run.
//
// Started as the real worker is: `<binary> __worker --backend B`.
#include <cstring>
#include <string>

#include "device/backend.h"
#include "eval/wire/measurement_protocol.h"
#include "eval/worker_side/measurement_service.h"
#include "worker/worker_endpoint.h"

namespace {

void tamper(const kh::Message& request, kh::Message& reply) {
#ifdef KH_MALFORMED_CHECK_REPLY
  // Only the candidate's worker lies: the reference's replies stay true.
  if (reply.kind() == kh::measurement::kCheck && request.header.value("candidate", false) &&
      !reply.header.contains("error"))
    reply.header["call_ms"] = "slow";
#else
  static_cast<void>(request);
  if (reply.kind() == kh::measurement::kTimedOutputs && !reply.payload.empty())
    reply.payload[0] ^= std::byte{1};
#endif
}

}  // namespace

int main(int argc, char** argv) {
  std::string backend = "cpu";
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--backend") == 0) backend = argv[i + 1];
  }
  kh::Channel channel = kh::open_inherited_channel();
  kh::MeasurementService service(kh::make_backend(backend));
  kh::serve(channel, [&](const kh::Message& request) {
    kh::Message reply = service.handle(request);
    tamper(request, reply);
    return reply;
  });
  return 0;
}
