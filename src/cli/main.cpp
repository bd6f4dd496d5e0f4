#include <CLI/CLI.hpp>

int main(int argc, char** argv) {
  CLI::App app{"kharness: evaluate and optimise GPU kernels"};
  app.require_subcommand(1);
  CLI11_PARSE(app, argc, argv);
  return 0;
}
