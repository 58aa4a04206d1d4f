#include "planner/workload/deepspeed_inventory.h"

#include <sstream>

#include <nlohmann/json.hpp>

#include "util/file.h"

namespace fastci::planner::workload {

util::Result<std::vector<TestWorkload>> read_deepspeed_inventory(const std::string& path, const Catalogue& catalogue) {
  util::Result<std::string> text = util::read_file(path);
  if (!text) return text.error();
  std::vector<TestWorkload> out;
  std::istringstream lines(*text);
  std::string line;
  int number = 0;
  const std::string world = catalogue.canonical("world_size").value_or("world_size");
  while (std::getline(lines, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json entry = nlohmann::json::parse(line, nullptr, false);
    if (entry.is_discarded() || !entry.is_object() || !entry.contains("nodeid") || !entry["nodeid"].is_string())
      return util::Error{"expected a JSON object with a string \"nodeid\"", path, number};
    TestWorkload test;
    test.id = entry["nodeid"].get<std::string>();
    test.framework = "deepspeed";
    test.file = path;
    test.override_form = OverrideForm::pytest;
    test.training = false;  // unit tests: no FLOPs model, cost is startup only
    std::vector<int> sizes;
    const nlohmann::json& size = entry.value("world_size", nlohmann::json());
    if (size.is_number_integer()) sizes.push_back(size.get<int>());
    if (size.is_array())
      for (const auto& item : size)
        if (item.is_number_integer()) sizes.push_back(item.get<int>());
    if (sizes.empty()) {
      test.gpus = 0;
      test.gpus_source = entry.value("world_size_source", std::string("world size not known"));
      out.push_back(std::move(test));
      continue;
    }
    for (int gpus : sizes) {
      TestWorkload sized = test;
      sized.gpus = gpus;
      sized.gpus_source = entry.value("world_size_source", std::string());
      sized.knobs.push_back({world, "world_size", std::to_string(gpus), frontend::KnobOrigin::attribute, path, number});
      if (sizes.size() > 1) sized.varied_scope.insert(world);
      out.push_back(std::move(sized));
    }
  }
  return out;
}

}  // namespace fastci::planner::workload
