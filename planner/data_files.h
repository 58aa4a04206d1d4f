#pragma once
/// Changed files that are not code (test assets, configuration files read by code) mapped to the
/// code that reads them, instead of to every test.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "planner/change_set.h"

namespace fastci::planner {

/// A line of a source file that may read a data file.
struct DataFileReference {
  int line = 0;
  std::string how;  ///< e.g. "names it", "names its folder 'configs'", "lists a folder"
};

/// The lines of `text` (one file) that may read `data_path`: those naming its file name or its name
/// without the extension between quotes or slashes (a string literal or a path), those naming a
/// folder it lies in (unless `added`: code that did not change cannot build the name of a file
/// that did not exist), and the directory listings (listdir, glob, iterdir, scandir, walk) of a
/// file that names one of those folders.
std::vector<DataFileReference> data_file_references(const std::string& data_path, bool added, const std::string& text);

/// The files of the head tree to search: every path, and its text on demand (nullptr: unreadable).
struct TreeSources {
  std::vector<std::string> paths;
  std::function<const std::string*(const std::string& path)> read;
};

/// Maps each changed file of unknown kind that code names to that code: the functions (and
/// module-level bindings) holding the references count as changed, each said in the plan with its
/// file and line, instead of the whole-suite widening (or, with unknown_files = "ignore", nothing);
/// module-level statements naming it select its module's importers. A file no code names, or that
/// another file which is not code names, keeps its widening, with the reason added.
void map_data_files(const TreeSources& tree, const FactsLookup& head_facts, ChangeSet& changes);

/// The symbols map_data_files counted as changed, each with the data file it names.
std::map<std::string, std::string> data_file_readers(const ChangeSet& changes);

}  // namespace fastci::planner
