#pragma once
/// JSON form of the fact model: the index cache stores it, `fastci facts` prints it.

#include <nlohmann/json.hpp>

#include "frontend/facts.h"
#include "util/result.h"

namespace fastci::frontend {

nlohmann::json to_json(const FileFacts& facts);
/// Reads what to_json wrote; fails (never throws) on anything else.
util::Result<FileFacts> file_facts_from_json(const nlohmann::json& json);

}  // namespace fastci::frontend
