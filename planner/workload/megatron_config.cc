#include "planner/workload/megatron_config.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "planner/workload/constraints.h"
#include "planner/workload/data_file.h"
#include "planner/workload/scope.h"
#include "util/file.h"

namespace fastci::planner::workload {
namespace fs = std::filesystem;
namespace {

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

/// Scalar text of a node as written; sequences and maps in YAML flow style.
std::string scalar_text(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  if (node.IsNull()) return "";
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

int int_or(const YAML::Node& node, int fallback) {
  if (!node || !node.IsScalar()) return fallback;
  auto value = parse_integer(node.Scalar());
  return value ? static_cast<int>(*value) : fallback;
}

util::Result<YAML::Node> load_yaml(const std::string& path) {
  util::Result<std::string> text = util::read_file(path);
  if (!text) return text.error();
  try {
    return YAML::Load(*text);
  } catch (const YAML::Exception& error) {
    return util::Error{error.msg, path, error.mark.line >= 0 ? error.mark.line + 1 : 0};
  }
}

/// True when a flag's value is set and not "false".
bool flag_set(const std::map<std::string, std::string>& arguments, const std::string& flag) {
  auto found = arguments.find(flag);
  return found != arguments.end() && found->second != "false" && found->second != "False";
}

}  // namespace

util::Result<MegatronRunnerRules> load_megatron_rules(const std::string& path) {
  util::Result<toml::table> table = load_toml(path);
  if (!table) return table.error();
  const toml::table* runner = (*table)["runner"].as_table();
  if (!runner) return util::Error{"expected a [runner] table", path, 0};
  MegatronRunnerRules rules;
  rules.recorded_checkpoint_test_types = toml_strings(*runner, "recorded_checkpoint_test_types");
  rules.resume_at_half_test_types = toml_strings(*runner, "resume_at_half_test_types");
  rules.iteration_shrink_modes = toml_strings(*runner, "iteration_shrink_modes");
  rules.iteration_shrink_test_types = toml_strings(*runner, "iteration_shrink_test_types");
  rules.checkpoint_loading_flags = toml_strings(*runner, "checkpoint_loading_flags");
  rules.checkpoint_placeholders = toml_strings(*runner, "checkpoint_placeholders");
  rules.layer_layout_flags = toml_strings(*runner, "layer_layout_flags");
  rules.iteration_schedule_flags = toml_strings(*runner, "iteration_schedule_flags");
  rules.skip_comparison_env = (*runner)["skip_comparison_env"].value_or(rules.skip_comparison_env);
  rules.default_gpus_per_node = (*runner)["default_gpus_per_node"].value_or(rules.default_gpus_per_node);
  return rules;
}

util::Result<RecipeIndex> RecipeIndex::load(const std::string& recipes_dir, int default_gpus_per_node) {
  RecipeIndex index;
  std::error_code error;
  if (!fs::is_directory(recipes_dir, error)) return util::Error{"not a directory", recipes_dir, 0};
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(recipes_dir, error))
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    util::Result<YAML::Node> document = load_yaml(file.string());
    if (!document) return document.error();
    const YAML::Node spec = (*document)["spec"];
    if (!spec || !spec.IsMap() || !spec["model"]) continue;  // build and cleanup templates
    RecipeEntry base;
    base.recipe = file.string();
    base.model = scalar_text(spec["model"]);
    base.nodes = int_or(spec["nodes"], 1);
    // The job launches GPUS_PER_NODE processes per node: spec.gpus when the script exports it as
    // {gpus}, a literal when it sets one, else _run_training.sh's default.
    const std::string script = spec["script"] ? scalar_text(spec["script"]) : std::string();
    std::smatch launched;
    static const std::regex kGpusPerNode(R"(GPUS_PER_NODE=(\{gpus\}|[0-9]+))");
    if (std::regex_search(script, launched, kGpusPerNode)) {
      base.gpus_per_node = launched[1] == "{gpus}" ? int_or(spec["gpus"], 0) : std::stoi(launched[1]);
      base.gpus_per_node_source = "script sets GPUS_PER_NODE=" + launched[1].str();
    } else {
      base.gpus_per_node = default_gpus_per_node;
      base.gpus_per_node_source = "script leaves GPUS_PER_NODE at the runner default " +
                                  std::to_string(default_gpus_per_node) + " (spec gpus: " +
                                  (spec["gpus"] ? scalar_text(spec["gpus"]) : std::string("unset")) + ")";
    }
    base.repeats = int_or(spec["n_repeat"], 1);
    const bool h100 = file.parent_path().filename() == "h100";
    if (h100 && !index.defaults_.count(base.model)) index.defaults_[base.model] = base;
    const YAML::Node products = (*document)["products"];
    if (!products || !products.IsSequence()) continue;
    for (const YAML::Node& product : products) {
      RecipeEntry entry = base;
      const YAML::Node variants = product["products"];
      if (variants && variants.IsSequence()) {
        for (const YAML::Node& variant : variants) {
          entry.repeats = int_or(variant["n_repeat"], entry.repeats);
          if (variant["platforms"] && variant["platforms"].IsSequence())
            for (const YAML::Node& platform : variant["platforms"]) entry.platforms.push_back(scalar_text(platform));
        }
      }
      const YAML::Node cases = product["test_case"];
      if (!cases || !cases.IsSequence()) continue;
      for (const YAML::Node& test_case : cases)
        index.entries_.emplace(std::make_pair(base.model, scalar_text(test_case)), entry);
    }
  }
  return index;
}

const RecipeEntry* RecipeIndex::find(const std::string& model, const std::string& test_case) const {
  auto [begin, end] = entries_.equal_range({model, test_case});
  const RecipeEntry* best = nullptr;
  for (auto it = begin; it != end; ++it) {
    const bool h100 = fs::path(it->second.recipe).parent_path().filename() == "h100";
    if (!best || (h100 && fs::path(best->recipe).parent_path().filename() != "h100")) best = &it->second;
  }
  return best;
}

const RecipeEntry* RecipeIndex::model_default(const std::string& model) const {
  auto found = defaults_.find(model);
  return found == defaults_.end() ? nullptr : &found->second;
}

util::Result<TestWorkload> read_megatron_test(const std::string& model_config_path, const RecipeIndex& recipes,
                                              const Catalogue& catalogue, const MegatronRunnerRules& rules) {
  util::Result<YAML::Node> document = load_yaml(model_config_path);
  if (!document) return document.error();
  const fs::path path(model_config_path);
  const std::string test_case = path.parent_path().filename().string();
  const std::string model = path.parent_path().parent_path().filename().string();

  TestWorkload test;
  test.id = model + "/" + test_case;
  test.framework = "megatron";
  test.file = model_config_path;
  test.override_form = OverrideForm::megatron_yaml;

  const YAML::Node arguments = (*document)["MODEL_ARGS"];
  if (arguments && !arguments.IsMap() && !arguments.IsNull())
    return util::Error{"expected MODEL_ARGS to be a map of flags", model_config_path, arguments.Mark().line + 1};
  std::map<std::string, std::string> raw;
  std::set<std::string> seen;
  const auto add_argument = [&](const YAML::Node& key, const YAML::Node& value) {
    Knob knob;
    knob.raw_name = scalar_text(key);
    knob.value = scalar_text(value);
    knob.origin = frontend::KnobOrigin::config_file;
    knob.file = model_config_path;
    knob.line = key.Mark().line + 1;
    raw[knob.raw_name] = knob.value;
    auto canonical = catalogue.canonical(knob.raw_name);
    if (!canonical) return;
    knob.name = *canonical;
    // --num-layers and --decoder-num-layers name one knob: the first written wins.
    if (!seen.insert(knob.name).second) return;
    test.knobs.push_back(std::move(knob));
  };
  if (arguments && arguments.IsMap()) {
    // YAML merge keys (`<<: *BASE`) are not expanded by the parser: the merged map's entries come
    // first and the map's own entries override them.
    std::map<std::string, YAML::Node> own;
    for (const auto& item : arguments) own.emplace(scalar_text(item.first), item.second);
    for (const auto& item : arguments) {
      if (scalar_text(item.first) != "<<" || !item.second.IsMap()) continue;
      for (const auto& merged : item.second)
        if (!own.count(scalar_text(merged.first))) add_argument(merged.first, merged.second);
    }
    for (const auto& item : arguments)
      if (scalar_text(item.first) != "<<") add_argument(item.first, item.second);
  }

  // GPUs: the recipe that schedules the case, else the model's H100 recipe spec.
  const RecipeEntry* recipe = recipes.find(model, test_case);
  if (recipe) {
    test.gpus_source = fs::path(recipe->recipe).parent_path().filename().string() + "/" +
                       fs::path(recipe->recipe).filename().string() + ": " + std::to_string(recipe->nodes) +
                       " node(s), " + recipe->gpus_per_node_source;
  } else if ((recipe = recipes.model_default(model))) {
    test.gpus_source = "not scheduled in a recipe; spec of " +
                       fs::path(recipe->recipe).parent_path().filename().string() + "/" +
                       fs::path(recipe->recipe).filename().string() + ": " + recipe->gpus_per_node_source;
  }
  const YAML::Node per_run = (*document)["MODEL_ENV_VARS"];
  if (per_run && per_run.IsMap() && per_run["MODEL_ARGS"] && per_run["MODEL_ARGS"].IsMap() &&
      per_run["MODEL_ARGS"]["GPUS_PER_NODE"]) {
    // checkpoint-consistency runs each MODEL_ARGS key on its own GPU count (run_ci_test.sh:297-305).
    test.gpus = int_or(per_run["MODEL_ARGS"]["GPUS_PER_NODE"], 0);
    test.repeats = recipe ? std::max(1, recipe->repeats) : 1;
    test.gpus_source = "MODEL_ENV_VARS.MODEL_ARGS.GPUS_PER_NODE";
    test.knobs.push_back({"world_size", "GPUS_PER_NODE", std::to_string(test.gpus), frontend::KnobOrigin::config_file,
                          model_config_path, per_run["MODEL_ARGS"]["GPUS_PER_NODE"].Mark().line + 1});
  } else if (recipe) {
    test.gpus = recipe->nodes * recipe->gpus_per_node;
    test.repeats = std::max(1, recipe->repeats);
    Knob world{"world_size", "world_size", std::to_string(test.gpus), frontend::KnobOrigin::config_file,
               recipe->recipe, 0};
    test.knobs.push_back(world);
  } else {
    // No recipe for the model at all: one node of the runner default, widened by the plan if needed.
    test.gpus = rules.default_gpus_per_node;
    test.gpus_source = "not scheduled in a recipe; no recipe for model " + model + ": runner default " +
                       std::to_string(rules.default_gpus_per_node) + " GPUs per node";
    test.knobs.push_back({"world_size", "world_size", std::to_string(test.gpus), frontend::KnobOrigin::config_file,
                          model_config_path, 0});
  }

  const std::string test_type = (*document)["TEST_TYPE"] ? scalar_text((*document)["TEST_TYPE"]) : "regular";
  const std::string mode = (*document)["MODE"] ? scalar_text((*document)["MODE"]) : "pretraining";
  const YAML::Node environment = (*document)["ENV_VARS"];
  const bool skip_comparison = environment && environment.IsMap() && environment[rules.skip_comparison_env] &&
                               scalar_text(environment[rules.skip_comparison_env]) == "1";
  test.compares_golden_values = !skip_comparison;
  test.training = mode == "pretraining";
  const bool resumes = contains(rules.resume_at_half_test_types, test_type);
  test.phases = resumes || test_type == "frozen-resume" ? 2 : 1;
  test.facts["resume_at_half"] = resumes ? 1 : 0;
  int split_extra = 0;
  for (const char* flag : {"--account-for-embedding-in-pipeline-split", "--account-for-loss-in-pipeline-split"})
    split_extra += flag_set(raw, flag) ? 1 : 0;
  test.facts["pipeline_split_extra"] = split_extra;
  test.facts["layer_layout_string"] = raw.count("--hybrid-layer-pattern") || raw.count("--hybrid-override-pattern") ||
                                      raw.count("--pipeline-model-parallel-layout");
  for (const char* extra : {"MODEL_ARGS_2", "BASE_MODEL_ARGS"})
    if ((*document)[extra]) test.facts["several_model_args"] = 1;

  // Iterations only repeat work in plain pretraining runs without an iteration-keyed schedule.
  std::string iteration_block;
  if (!contains(rules.iteration_shrink_modes, mode)) iteration_block = "MODE " + mode + " is not a training run";
  else if (!contains(rules.iteration_shrink_test_types, test_type))
    iteration_block = "TEST_TYPE " + test_type + " resumes or compares a recorded run at its iteration";
  for (const std::string& flag : rules.iteration_schedule_flags)
    if (iteration_block.empty() && raw.count(flag)) iteration_block = flag + " keys a schedule to iterations";
  if (iteration_block.empty() && test.facts["several_model_args"]) iteration_block = "several MODEL_ARGS runs";
  if (iteration_block.empty()) test.shrinkable.insert("train_iters");
  else test.blocked["train_iters"] = iteration_block;

  // Layers only repeat work when no recorded checkpoint fixes the shape and no pattern string places them.
  std::string layer_block;
  if (!test.training) layer_block = "MODE " + mode + " loads a recorded checkpoint of this shape";
  else if (contains(rules.recorded_checkpoint_test_types, test_type))
    layer_block = "TEST_TYPE " + test_type + " loads a recorded checkpoint of this shape";
  for (const std::string& flag : rules.checkpoint_loading_flags) {
    auto found = raw.find(flag);
    if (!layer_block.empty() || found == raw.end() || found->second.empty()) continue;
    if (!contains(rules.checkpoint_placeholders, found->second))
      layer_block = flag + " " + found->second + " loads recorded weights of this shape";
  }
  for (const std::string& flag : rules.layer_layout_flags)
    if (layer_block.empty() && raw.count(flag)) layer_block = flag + " places layers by pattern";
  if (layer_block.empty() && test.facts["several_model_args"]) layer_block = "several MODEL_ARGS runs";
  if (layer_block.empty()) test.shrinkable.insert("layers");
  else test.blocked["layers"] = layer_block;
  return test;
}

util::Result<MegatronSuite> read_megatron_suite(const std::string& megatron_dir, const Catalogue& catalogue,
                                                const MegatronRunnerRules& rules) {
  util::Result<RecipeIndex> recipes =
      RecipeIndex::load((fs::path(megatron_dir) / "recipes").string(), rules.default_gpus_per_node);
  if (!recipes) return recipes.error();
  const fs::path cases = fs::path(megatron_dir) / "test_cases";
  std::error_code error;
  if (!fs::is_directory(cases, error)) return util::Error{"no test_cases folder", cases.string(), 0};
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(cases, error))
    if (entry.is_regular_file() && entry.path().filename() == "model_config.yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  MegatronSuite suite;
  for (const fs::path& file : files) {
    util::Result<TestWorkload> test = read_megatron_test(file.string(), *recipes, catalogue, rules);
    if (!test) {
      suite.problems.push_back(test.error());
      continue;
    }
    suite.tests.push_back(std::move(*test));
  }
  // Sibling configs of one model family that differ in one knob only: that knob is what they test.
  std::map<std::string, std::vector<TestWorkload*>> families;
  for (TestWorkload& test : suite.tests) families[test.id.substr(0, test.id.find('/'))].push_back(&test);
  for (auto& [family, members] : families) {
    std::vector<TestWorkload> copies;
    for (TestWorkload* member : members) {
      TestWorkload copy = *member;
      copy.knobs.erase(std::remove_if(copy.knobs.begin(), copy.knobs.end(),
                                      [](const Knob& knob) { return knob.name == "world_size"; }),
                       copy.knobs.end());
      copies.push_back(std::move(copy));
    }
    auto varied = varied_knobs(copies, catalogue);
    for (TestWorkload* member : members)
      if (auto found = varied.find(member->id); found != varied.end()) member->varied_scope = found->second;
  }
  return suite;
}

std::map<std::string, double> read_golden_step_times(const std::string& case_dir) {
  std::map<std::string, double> out;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(case_dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("golden_values_", 0) != 0 || entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    nlohmann::json document = nlohmann::json::parse(in, nullptr, false);
    if (document.is_discarded() || !document.contains("iteration-time")) continue;
    const nlohmann::json& values = document["iteration-time"]["values"];
    if (!values.is_object()) continue;
    std::vector<double> seconds;
    for (const auto& [step, value] : values.items())
      if (value.is_number() && std::atoi(step.c_str()) > 1) seconds.push_back(value.get<double>());
    if (seconds.empty()) continue;
    std::sort(seconds.begin(), seconds.end());
    out[name] = seconds[seconds.size() / 2];
  }
  return out;
}

}  // namespace fastci::planner::workload
