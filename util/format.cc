#include "util/format.h"

#include <cstdio>

namespace fastci::util {

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

}  // namespace fastci::util
