// Built when libcurl is absent: the HTTP agents exist but say why they cannot run.
#include "agents/http_client.h"
#include "error/error.h"

namespace kh::agents {

HttpResponse http_post(const HttpRequest& request) {
  throw Error(Location{"", 0, "agent"},
              "kharness was built without libcurl (Debian: libcurl4-openssl-dev); "
              "cannot reach " +
                  request.url);
}

}  // namespace kh::agents
