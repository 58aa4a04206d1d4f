"""End-to-end tests: the fixture suite under `-p fastci_pytest`, its evidence files read back and checked."""

import collections
import glob
import os
import shutil
import subprocess
import sys

import pytest

from evidence_schema import read_file
from plugin_under_test import environment as plugin_environment, fastci_version, python_path
from test_backends import interpreters

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPOSITORY = os.path.dirname(SCRIPTS)
FIXTURE = os.path.join(REPOSITORY, "tests", "fixtures", "pytest_plugin")
LINEAR = "minitrain/layers.py::linear"
WORKER_STEP = "minitrain/distributed.py::worker_step"


def copy_fixture(destination, commit=True):
    shutil.copytree(FIXTURE, destination, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    if commit:
        git = ["git", "-C", str(destination), "-c", "user.name=fastci", "-c", "user.email=fastci@example.org"]
        subprocess.run(git + ["init", "-q"], check=True)
        subprocess.run(git + ["add", "."], check=True)
        subprocess.run(git + ["commit", "-q", "-m", "fixture"], check=True)
    return destination


def run_pytest(project, evidence, *arguments, python=None, environment=None):
    env = plugin_environment()
    env.pop("FASTCI_WORKER_CONFIG", None)
    env.pop("FASTCI_COMMIT", None)
    env.update(environment or {})
    # `--fastci-evidence=DIR` in one word: pytest takes a separate word for a path when it picks rootdir
    command = [python or sys.executable, "-m", "pytest", "-p", "fastci_pytest", "--fastci-evidence=%s" % evidence,
               "-q", "-p", "no:cacheprovider", *arguments]
    result = subprocess.run(command, cwd=str(project), env=env, capture_output=True, text=True, timeout=600)
    assert "Traceback" not in result.stderr, result.stderr
    return result


class Evidence:
    """All files of one run, read back and checked against the format."""

    def __init__(self, directory):
        self.directory = directory
        self.files = {path: read_file(path) for path in sorted(glob.glob(os.path.join(directory, "*.jsonl")))}
        self.records = [r for records in self.files.values() for r in records]
        self.tests = {}
        for record in self.records:
            if record["type"] == "test":
                assert record["id"] not in self.tests, "test written twice: " + record["id"]
                self.tests[record["id"]] = record

    def runs(self, role):
        return [records[0] for records in self.files.values() if records[0]["process"]["role"] == role]

    def contexts(self, function, test=None, role=None):
        out = []
        for records in self.files.values():
            if role is not None and records[0]["process"]["role"] != role:
                continue
            out += [r for r in records if r["type"] == "context" and r["function"] == function
                    and (test is None or r["test"] == test)]
        return out

    def covered_files(self, test):
        return {r["file"] for r in self.records if r["type"] == "coverage" and r["test"] == test}


def pythons():
    """This interpreter, plus one with sys.monitoring (3.12+) borrowing this one's pure-Python pytest."""
    found = [pytest.param((None, {}), id="python%d.%d" % sys.version_info[:2])]
    if sys.version_info < (3, 12):
        newer = [(v, p) for v, p in interpreters() if tuple(map(int, v.split("."))) >= (3, 12)]
        if newer:
            import site
            borrowed = python_path(*site.getsitepackages())
            env = {"PYTHONPATH": borrowed, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
            found.append(pytest.param((newer[0][1], env), id="python" + newer[0][0]))
    return found


@pytest.fixture(scope="module", params=pythons())
def suite(request, tmp_path_factory):
    python, environment = request.param
    project = copy_fixture(tmp_path_factory.mktemp("suite") / "project")
    evidence = tmp_path_factory.mktemp("evidence")
    result = run_pytest(project, evidence, python=python, environment=environment)
    assert result.returncode == 1, result.stdout + result.stderr  # the suite has a failing test on purpose
    commit = subprocess.run(["git", "-C", str(project), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    return Evidence(str(evidence)), commit.strip()


def test_every_file_matches_the_format_and_is_published(suite):
    evidence, commit = suite
    assert evidence.files
    assert not glob.glob(os.path.join(evidence.directory, ".*.tmp"))
    for records in evidence.files.values():
        assert records[0]["commit"] == commit
        assert records[0]["collector"] == "fastci_pytest " + fastci_version()
        # the limits of context recording, workers included: past them a planner may not prune
        assert records[0]["environment"]["sampling"] == {"max_contexts": 8, "max_calls": 32}


def test_outcomes(suite):
    evidence, _ = suite
    outcome = {test_id.split("::", 1)[1]: record["outcome"] for test_id, record in evidence.tests.items()}
    assert outcome["test_fails"] == "failed"
    assert outcome["test_skipped"] == "skipped"
    assert outcome["test_xfailed"] == "xfailed"
    assert outcome["test_xpassed"] == "xpassed"
    assert outcome["test_setup_error"] == "error"
    assert outcome["test_teardown_error"] == "error"
    assert outcome["test_linear[True-bfloat16]"] == "passed"
    assert "setup broke" in evidence.tests["tests/test_layers.py::test_setup_error"]["message"]
    assert "teardown broke" in evidence.tests["tests/test_layers.py::test_teardown_error"]["message"]
    assert evidence.tests["tests/test_layers.py::test_skipped"]["message"].endswith("not on this machine")
    assert all(record["duration"] >= 0 for record in evidence.tests.values())


def test_dtype_and_sequence_parallel_give_distinct_contexts(suite):
    evidence, _ = suite
    arguments = {}
    for dtype, short in (("float32", "fp32"), ("bfloat16", "bf16")):
        for flag in ("False", "True"):
            test_id = "tests/test_layers.py::test_linear[%s-%s]" % (flag, dtype)
            contexts = evidence.contexts(LINEAR, test_id)
            assert len(contexts) == 1, contexts
            text = contexts[0]["arguments"]
            assert text.startswith("x:tensor[%s,2,cpu,strided];" % short), text
            assert text.endswith(";sequence_parallel:%s" % flag), text
            assert contexts[0]["callers"] == ["tests/test_layers.py::test_linear"]
            arguments[(dtype, flag)] = (text, tuple(map(tuple, contexts[0]["arcs"])))
    assert len(set(arguments.values())) == 4
    # sequence parallel takes the gather branch: its arcs differ, not only its arguments
    assert arguments[("float32", "True")][1] != arguments[("float32", "False")][1]


def test_coverage_of_executed_functions_only(suite):
    evidence, _ = suite
    files = evidence.covered_files("tests/test_layers.py::test_linear[True-bfloat16]")
    assert {"minitrain/layers.py", "minitrain/arrays.py", "tests/test_layers.py"} <= files
    assert "minitrain/distributed.py" not in files
    layers = [r for r in evidence.records if r["type"] == "coverage" and r["file"] == "minitrain/layers.py"
              and r["test"] == "tests/test_layers.py::test_linear[False-float32]"]
    executed = {line for first, last in layers[0]["lines"] for line in range(first, last + 1)}
    source = open(os.path.join(FIXTURE, "minitrain", "layers.py")).read().splitlines()
    gather_line = next(i for i, text in enumerate(source, 1) if "x = gather_sequence(x)" in text)
    assert gather_line not in executed
    assert gather_line - 1 in executed  # the `if sequence_parallel:` test itself


def test_callers_are_repository_frames(suite):
    evidence, _ = suite
    contexts = evidence.contexts(LINEAR, "tests/test_layers.py::test_block[Precision.HALF]")
    assert [c["callers"] for c in contexts] == [["minitrain/layers.py::Block.forward", "tests/test_layers.py::test_block"]]
    assert contexts[0]["count"] == 3  # num_layers=3 calls, one context


def test_knobs_and_gpus(suite):
    evidence, _ = suite
    linear = evidence.tests["tests/test_layers.py::test_linear[True-bfloat16]"]
    assert linear["knobs"] == {"dtype": "bfloat16", "sequence_parallel": "True"}
    block = evidence.tests["tests/test_layers.py::test_block[Precision.HALF]"]
    assert block["knobs"]["precision"] == "Precision.HALF"
    assert block["knobs"]["num_layers"] == "3" and block["knobs"]["hidden_size"] == "4"
    assert linear["gpus"] == 0
    assert evidence.tests["tests/test_distributed.py::TestRanks::test_pool[spawn]"]["gpus"] == 2
    assert evidence.tests["tests/test_distributed.py::TestRanks::test_process_fork"]["gpus"] == 4
    assert evidence.tests["tests/test_distributed.py::TestSizes::test_sizes"]["gpus"] == 4


@pytest.mark.parametrize("test_id", [
    "tests/test_distributed.py::TestRanks::test_pool[spawn]",
    "tests/test_distributed.py::TestRanks::test_pool[fork]",
    "tests/test_distributed.py::TestRanks::test_pool[forkserver]",
    "tests/test_distributed.py::TestRanks::test_process_fork",
    "tests/test_distributed.py::TestSizes::test_sizes",
])
def test_worker_processes_are_attributed_to_their_test(suite, test_id):
    evidence, _ = suite
    worker_contexts = evidence.contexts(WORKER_STEP, test_id, role="worker")
    assert worker_contexts, "no worker evidence for " + test_id
    assert not evidence.contexts(WORKER_STEP, test_id, role="pytest")  # the body ran in workers only
    ranks = {c["arguments"] for c in worker_contexts}
    if "test_pool" in test_id:
        assert ranks == {"rank:int[0]", "rank:int[1]"}
        bf16 = [c for c in evidence.contexts(LINEAR, test_id, role="worker") if "x:tensor[bf16" in c["arguments"]]
        assert bf16 and bf16[0]["callers"][0] == WORKER_STEP  # forked workers also keep the parent's frames
    assert "minitrain/distributed.py" in evidence.covered_files(test_id)
    others = {c["test"] for c in evidence.contexts(WORKER_STEP)}
    assert others <= {t for t in evidence.tests if "test_distributed" in t}


def test_worker_files_carry_their_process(suite):
    evidence, _ = suite
    pytest_runs = evidence.runs("pytest")
    assert len(pytest_runs) == 1
    workers = evidence.runs("worker")
    # at least one worker per distributed test (a pool worker that got no task records nothing)
    assert len({r["test"] for r in evidence.records if r["type"] == "context" and r["function"] == WORKER_STEP}) == 5
    assert len(workers) >= 5
    assert all(w["pid"] != pytest_runs[0]["process"]["pid"] for w in (r["process"] for r in workers))


def test_commit_from_environment(tmp_path):
    project = copy_fixture(tmp_path / "project", commit=False)
    evidence = tmp_path / "evidence"
    result = run_pytest(project, evidence, "tests/test_layers.py::test_block",
                        environment={"FASTCI_COMMIT": "0123456789abcdef0123456789abcdef01234567"})
    assert result.returncode == 0, result.stdout
    run = Evidence(str(evidence))
    assert {records[0]["commit"] for records in run.files.values()} == {"0123456789abcdef0123456789abcdef01234567"}
    assert len(run.tests) == 2


def test_sources_option_limits_recording(tmp_path):
    project = copy_fixture(tmp_path / "project", commit=False)
    evidence = tmp_path / "evidence"
    result = run_pytest(project, evidence, "tests/test_layers.py::test_block",
                        "--fastci-source=%s" % (project / "minitrain"), "--fastci-stack-depth=1")
    assert result.returncode == 0, result.stdout
    run = Evidence(str(evidence))
    files = {r["file"] for r in run.records if r["type"] == "coverage"}
    assert files == {"minitrain/layers.py", "minitrain/arrays.py"}
    assert all(len(r["callers"]) <= 1 for r in run.records if r["type"] == "context")


def test_xdist_workers_write_their_own_files(tmp_path):
    pytest.importorskip("xdist")
    project = copy_fixture(tmp_path / "project", commit=False)
    evidence = tmp_path / "evidence"
    result = run_pytest(project, evidence, "-n", "2")
    assert result.returncode == 1, result.stdout + result.stderr
    run = Evidence(str(evidence))
    xdist = {r["process"].get("xdist_worker") for r in run.runs("pytest")}
    assert xdist == {"gw0", "gw1"}
    collected = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
                               cwd=str(project), capture_output=True, text=True).stdout
    expected = {line for line in collected.splitlines() if "::" in line}
    assert set(run.tests) == expected
    assert evidence_per_test_is_complete(run, "tests/test_distributed.py::TestRanks::test_pool[forkserver]")
    assert run.contexts(LINEAR, "tests/test_layers.py::test_linear[True-bfloat16]")


def evidence_per_test_is_complete(run, test_id):
    return bool(run.contexts(WORKER_STEP, test_id, role="worker"))


def test_no_workers_option(tmp_path):
    project = copy_fixture(tmp_path / "project", commit=False)
    evidence = tmp_path / "evidence"
    result = run_pytest(project, evidence, "tests/test_distributed.py", "--fastci-no-workers")
    assert result.returncode == 0, result.stdout
    run = Evidence(str(evidence))
    assert not run.runs("worker") and len(run.runs("pytest")) == 1


def test_real_torch_tensors_in_the_suite(suite):
    evidence, _ = suite
    torch_tests = {t: r for t, r in evidence.tests.items() if t.startswith("tests/test_torch.py::")}
    if not torch_tests or all(r["outcome"] == "skipped" for r in torch_tests.values()):
        pytest.skip("torch is not importable by this interpreter")
    seen = {}
    for test_id, record in torch_tests.items():
        assert record["outcome"] == "passed"
        contexts = evidence.contexts("minitrain/layers.py::gather_sequence", test_id)
        assert len(contexts) == 1
        seen[record["knobs"]["dtype"]] = contexts[0]["arguments"]
    assert seen == {"torch.float32": "x:tensor[fp32,2,cpu,strided]", "torch.bfloat16": "x:tensor[bf16,2,cpu,strided]"}


def test_ids_are_named_from_the_repository_root_when_rootdir_is_a_subfolder(tmp_path):
    # DeepSpeed keeps pytest.ini in tests/, so pytest's node ids start below it; fastci's start at the work tree
    project = copy_fixture(tmp_path / "project")
    (project / "tests" / "pytest.ini").write_text("[pytest]\n")
    evidence = tmp_path / "evidence"
    result = run_pytest(project / "tests", evidence, "test_layers.py::test_block",
                        environment={"PYTHONPATH": python_path(project)})
    assert result.returncode == 0, result.stdout
    run = Evidence(str(evidence))
    assert sorted(run.tests) == ["tests/test_layers.py::test_block[Precision.FULL]",
                                 "tests/test_layers.py::test_block[Precision.HALF]"]
    assert {r["test"] for r in run.records if r["type"] == "coverage"} <= set(run.tests)


def test_world_size_override_reaches_the_test_function(tmp_path):
    # fastci's shrunk workloads for DeepSpeed: @pytest.mark.world_size(N) put where DistributedTest reads it
    project = copy_fixture(tmp_path / "project")
    evidence = tmp_path / "evidence"
    result = run_pytest(project, evidence, "tests/test_distributed.py",
                        "--fastci-world-size=tests/test_distributed.py::TestRanks::test_process_fork=1",
                        "--fastci-world-size=tests/test_distributed.py::TestRanks::test_pool=3")
    assert result.returncode == 0, result.stdout + result.stderr
    run = Evidence(str(evidence))
    assert run.tests["tests/test_distributed.py::TestRanks::test_process_fork"]["gpus"] == 1
    assert run.tests["tests/test_distributed.py::TestRanks::test_pool[spawn]"]["gpus"] == 3
    assert run.tests["tests/test_distributed.py::TestSizes::test_sizes"]["gpus"] == 4
    bad = run_pytest(project, tmp_path / "bad", "--fastci-world-size=tests/test_distributed.py")
    assert bad.returncode != 0 and "TEST=N" in bad.stderr


def test_the_current_test_file_of_the_launch_collectors_names_the_running_test(tmp_path):
    """A CUDA launch collector preloaded into pytest reads FASTCI_CURRENT_TEST_FILE (docs/cuda.md):
    the plugin rewrites that file at each test boundary, and empties it between tests."""
    project = tmp_path / "p"
    project.mkdir()
    current = tmp_path / "current-test"
    (project / "test_current.py").write_text(
        "import os\n"
        "def read():\n"
        "    with open(os.environ['FASTCI_CURRENT_TEST_FILE']) as f:\n"
        "        return f.read().strip()\n"
        "def test_one():\n"
        "    assert read() == 'test_current.py::test_one'\n"
        "def test_two():\n"
        "    assert read() == 'test_current.py::test_two'\n")
    result = run_pytest(project, tmp_path / "evidence", environment={"FASTCI_CURRENT_TEST_FILE": str(current)})
    assert result.returncode == 0, result.stdout + result.stderr
    assert current.read_text() == ""



REUSED_POOL_TESTS = '''\
import multiprocessing
import os

import pytest

from pkg import work

_POOLS = {}


@pytest.fixture(scope="module", autouse=True)
def close_pools():
    yield
    for each in _POOLS.values():
        each.terminate()
        each.join()


def pool():
    # one worker kept across tests, as DeepSpeed's DistributedTest keeps its pool with reuse_dist_env
    method = os.environ["POOL_METHOD"]
    if method not in _POOLS:
        _POOLS[method] = multiprocessing.get_context(method).Pool(1)
    return _POOLS[method]


def test_a():
    assert pool().apply(work.step_a, (1,)) == 2


def test_b():
    assert pool().apply(work.step_b, (1,)) == 2


def test_c():
    assert pool().apply(work.step_a, (2,)) == 3
'''


@pytest.mark.parametrize("python", pythons())
@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_reused_pool_worker_switches_tests_when_the_task_arrives(tmp_path, python, method):
    """Each test runs one short task in the same pool worker. With the poll made too slow to matter,
    only the boundary signal can switch the worker's test: test_b's step_b must not land in test_a."""
    interpreter, environment = python
    project = tmp_path / "p"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg" / "__init__.py").write_text("")
    (project / "pkg" / "work.py").write_text(
        "def step_a(x):\n    return x + 1\n\n\ndef step_b(x):\n    return x * 2\n")
    (project / "test_reused.py").write_text(REUSED_POOL_TESTS)
    evidence = tmp_path / "evidence"
    env = dict(environment, FASTCI_POLL_SECONDS="600", POOL_METHOD=method)
    result = run_pytest(project, evidence, python=interpreter, environment=env)
    assert result.returncode == 0, result.stdout + result.stderr
    run = Evidence(str(evidence))
    by_function = collections.defaultdict(set)
    for record in run.records:
        if record["type"] == "context" and record["function"].startswith("pkg/work.py::"):
            by_function[record["function"]].add(record["test"])
    assert by_function == {"pkg/work.py::step_a": {"test_reused.py::test_a", "test_reused.py::test_c"},
                           "pkg/work.py::step_b": {"test_reused.py::test_b"}}
    assert all(records[0]["process"]["role"] == "worker" for records in run.files.values()
               if any(r["type"] == "context" and r["function"].startswith("pkg/") for r in records))
