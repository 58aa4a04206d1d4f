#pragma once
/// Numbers as reports print them.

#include <string>

namespace fastci::util {

/// `value` with exactly `decimals` digits after the point ("12.35").
std::string fixed(double value, int decimals);

}  // namespace fastci::util
