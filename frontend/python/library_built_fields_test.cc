// Fields that library code reads (pydantic models, dataclasses, enums, a nested Config): whoever
// builds such a class depends on every one of them, not only on the lines that read them by name.
#include <gtest/gtest.h>

#include "frontend/python/link_modules.h"
#include "frontend/python/parse_module.h"
#include "frontend/python/python_test_support.h"

namespace fastci::frontend::python {
namespace {

using testing::has_edge;

/// Whether `from` names library-built class `built` (qualified name) and so reads `field` through
/// the class's hub, which stands for what building it reads.
bool builds(const RepositoryFacts& facts, const std::string& from, const std::string& built, const std::string& field) {
  const std::string hub = "?fields built by " + built;
  return has_edge(facts, from, hub, EdgeKind::read) && has_edge(facts, hub, field, EdgeKind::read);
}

/// The shapes of DeepSpeed's runtime/config_utils.py and runtime/zero/offload_config.py.
RepositoryFacts pydantic_models() {
  std::vector<ModuleRecord> modules;
  modules.push_back(parse_module("pkg/__init__.py", ""));
  modules.push_back(parse_module("pkg/config_utils.py",
                                 "from pydantic import BaseModel\n"
                                 "class ConfigModel(BaseModel):\n"
                                 "    def __init__(self, strict=False, **data):\n"
                                 "        super().__init__(**data)\n"
                                 "    class Config:\n"
                                 "        validate_assignment = True\n"
                                 "        allow_population_by_field_name = True\n"));
  modules.push_back(parse_module("pkg/offload.py",
                                 "from pydantic import validator\n"
                                 "from pkg.config_utils import ConfigModel\n"
                                 "class OffloadConfig(ConfigModel):\n"
                                 "    pin_memory: bool = False\n"
                                 "    pipeline_read: bool = False\n"
                                 "    @validator('pipeline_read', always=True)\n"
                                 "    def set_pipeline(cls, value, values):\n"
                                 "        values['pipeline'] = value or values.get('pipeline', False)\n"
                                 "        return value\n"
                                 "    def describe(self):\n"
                                 "        return str(self.pin_memory)\n"));
  modules.push_back(parse_module("pkg/zero.py",
                                 "from typing import Optional\n"
                                 "from pkg.config_utils import ConfigModel\n"
                                 "from pkg.offload import OffloadConfig\n"
                                 "class ZeroConfig(ConfigModel):\n"
                                 "    stage: int = 0\n"
                                 "    offload_optimizer: Optional[OffloadConfig] = None\n"
                                 "def zero_config(d):\n"
                                 "    return ZeroConfig(**d)\n"
                                 "def offload_of(d):\n"
                                 "    return OffloadConfig.parse_obj(d)\n"
                                 "def check(c):\n"
                                 "    return isinstance(c, OffloadConfig)\n"));
  modules.push_back(parse_module("pkg/plain.py",
                                 "class Counter:\n"
                                 "    start = 0\n"
                                 "    step = 1\n"
                                 "    def next(self):\n"
                                 "        return Counter.start + 1\n"
                                 "def make():\n"
                                 "    return Counter()\n"));
  modules.push_back(parse_module("pkg/kinds.py",
                                 "import enum\n"
                                 "from dataclasses import dataclass\n"
                                 "class Device(str, enum.Enum):\n"
                                 "    cpu = 'cpu'\n"
                                 "    nvme = 'nvme'\n"
                                 "@dataclass\n"
                                 "class Shape:\n"
                                 "    rows: int = 1\n"
                                 "    cols: int = 1\n"
                                 "def device(name):\n"
                                 "    return Device(name)\n"
                                 "def cpu():\n"
                                 "    return Device.cpu\n"
                                 "def square():\n"
                                 "    return Shape(2, 2)\n"));
  return link_modules(std::move(modules));
}

TEST(LibraryBuiltFields, ConstructingAModelReadsFieldsOnlyItsValidatorsRead) {
  auto facts = pydantic_models();
  // OffloadConfig() reads pipeline_read through pydantic, though no repository line reads it.
  EXPECT_TRUE(builds(facts, "py:pkg.zero.offload_of", "pkg.offload.OffloadConfig", "py:pkg.offload.OffloadConfig.pipeline_read="));
  EXPECT_TRUE(builds(facts, "py:pkg.zero.offload_of", "pkg.offload.OffloadConfig", "py:pkg.offload.OffloadConfig.pin_memory="));
  // isinstance builds nothing but names the class: counted, conservatively, as a read of its fields.
  EXPECT_TRUE(builds(facts, "py:pkg.zero.check", "pkg.offload.OffloadConfig", "py:pkg.offload.OffloadConfig.pipeline_read="));
}

TEST(LibraryBuiltFields, ANestedConfigsSettingsAreReadByEveryModelBuiltOnIt) {
  auto facts = pydantic_models();
  // Subclasses inherit the base's Config: building any of them reads its settings.
  EXPECT_TRUE(builds(facts, "py:pkg.zero.zero_config", "pkg.zero.ZeroConfig", "py:pkg.config_utils.ConfigModel.Config.allow_population_by_field_name="));
  EXPECT_TRUE(builds(facts, "py:pkg.zero.offload_of", "pkg.offload.OffloadConfig", "py:pkg.config_utils.ConfigModel.Config.validate_assignment="));
}

TEST(LibraryBuiltFields, AFieldAnnotatedWithAModelBuildsThatModel) {
  auto facts = pydantic_models();
  // pydantic builds offload_optimizer from a dict: ZeroConfig's field depends on OffloadConfig's.
  EXPECT_TRUE(builds(facts, "py:pkg.zero.ZeroConfig.offload_optimizer=", "pkg.offload.OffloadConfig", "py:pkg.offload.OffloadConfig.pipeline_read="));
  EXPECT_TRUE(builds(facts, "py:pkg.zero.zero_config", "pkg.zero.ZeroConfig", "py:pkg.zero.ZeroConfig.offload_optimizer="));
}

TEST(LibraryBuiltFields, TheClassesOwnMembersAndSubclassHeadersBuildNothing) {
  auto facts = pydantic_models();
  EXPECT_FALSE(builds(facts, "py:pkg.offload.OffloadConfig", "pkg.config_utils.ConfigModel", "py:pkg.config_utils.ConfigModel.Config.validate_assignment="));
  EXPECT_FALSE(builds(facts, "py:pkg.offload.OffloadConfig.describe", "pkg.offload.OffloadConfig", "py:pkg.offload.OffloadConfig.pipeline_read="));
}

TEST(LibraryBuiltFields, PlainClassesReachOnlyTheirReaders) {
  auto facts = pydantic_models();
  EXPECT_FALSE(builds(facts, "py:pkg.plain.make", "pkg.plain.Counter", "py:pkg.plain.Counter.step="));
  EXPECT_TRUE(has_edge(facts, "py:pkg.plain.Counter.next", "py:pkg.plain.Counter.start=", EdgeKind::read));
  EXPECT_FALSE(has_edge(facts, "py:pkg.plain.Counter.next", "py:pkg.plain.Counter.step=", EdgeKind::read));
}

TEST(LibraryBuiltFields, EnumsAndDataclassesAreBuiltByTheLibrary) {
  auto facts = pydantic_models();
  // Device("cpu") looks the value up among all members; Device.cpu reads one.
  EXPECT_TRUE(builds(facts, "py:pkg.kinds.device", "pkg.kinds.Device", "py:pkg.kinds.Device.nvme="));
  EXPECT_TRUE(has_edge(facts, "py:pkg.kinds.cpu", "py:pkg.kinds.Device.cpu=", EdgeKind::read));
  EXPECT_FALSE(builds(facts, "py:pkg.kinds.cpu", "pkg.kinds.Device", "py:pkg.kinds.Device.nvme="));
  // @dataclass generates __init__ from the fields: Shape(2, 2) depends on their order and defaults.
  EXPECT_TRUE(builds(facts, "py:pkg.kinds.square", "pkg.kinds.Shape", "py:pkg.kinds.Shape.cols="));
}

}  // namespace
}  // namespace fastci::frontend::python
