# Native coverage and GPU trace readers (lcov, gcov JSON, llvm-cov export, Kineto, Nsight Systems):
# their libraries and the Kineto ingest benchmark. Include from evidence/CMakeLists.txt after
# fastci_evidence is defined:  include(ingest/native_readers.cmake)

find_package(ZLIB REQUIRED)
find_package(simdjson REQUIRED)
target_link_libraries(fastci_evidence PUBLIC ZLIB::ZLIB simdjson::simdjson SQLite::SQLite3)

if(FASTCI_BUILD_BENCH)
  add_executable(fastci_kineto_perftest ${CMAKE_CURRENT_LIST_DIR}/kineto_perftest.cc)
  target_link_libraries(fastci_kineto_perftest PRIVATE fastci_evidence benchmark::benchmark)
endif()
