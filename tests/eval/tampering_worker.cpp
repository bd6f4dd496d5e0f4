// A measurement worker that lies about one thing: every byte range it sends back for a
// "timed_outputs" request has the lowest bit of its first byte flipped, a change far
// inside any tolerance. It stands for a solution that rewrites its timed outputs after
// the loop ended, before the orchestrator fetches them; the orchestrator must notice
// from the hashes the worker committed to as the loop ended.
//
// Started as the real worker is: `tampering_worker __worker --backend B`.
#include <cstring>
#include <string>

#include "device/backend.h"
#include "eval/wire/measurement_protocol.h"
#include "eval/worker_side/measurement_service.h"
#include "worker/worker_endpoint.h"

int main(int argc, char** argv) {
  std::string backend = "cpu";
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--backend") == 0) backend = argv[i + 1];
  }
  kh::Channel channel = kh::open_inherited_channel();
  kh::MeasurementService service(kh::make_backend(backend));
  kh::serve(channel, [&](const kh::Message& request) {
    kh::Message reply = service.handle(request);
    if (reply.kind() == kh::measurement::kTimedOutputs && !reply.payload.empty()) {
      reply.payload[0] ^= std::byte{1};
    }
    return reply;
  });
  return 0;
}
