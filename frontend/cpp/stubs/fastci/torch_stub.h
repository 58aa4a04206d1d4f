// Declaration-only stand-in for the PyTorch C++ API, used when the real headers are not
// installed: enough of at::/c10::/torch:: for extension sources to parse with their types intact.
#pragma once
// The real headers pull in much of the standard library; extension code relies on that.
#include <algorithm>
#if __has_include(<unistd.h>)
// c10/util/tempfile.h includes it, so on POSIX every extension sees write(), getuid(), close()...
#include <unistd.h>
#endif
#include <array>
#include <atomic>
#include <thread>
#include <cassert>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#ifndef TORCH_VERSION_MAJOR
#define TORCH_VERSION_MAJOR 2
#define TORCH_VERSION_MINOR 5
#define TORCH_VERSION_PATCH 0
#endif

#if defined(__CUDACC__) || defined(__CUDA__)
#define FASTCI_STUB_HOST_DEVICE __host__ __device__
#else
#define FASTCI_STUB_HOST_DEVICE
#endif

namespace c10 {

enum class ScalarType : int8_t {
  Byte, Char, Short, Int, Long, Half, Float, Double, ComplexHalf, ComplexFloat, ComplexDouble,
  Bool, QInt8, QUInt8, QInt32, BFloat16, QUInt4x2, QUInt2x4, Bits1x8, Bits2x4, Bits4x2, Bits8,
  Bits16, Float8_e5m2, Float8_e4m3fn, Float8_e5m2fnuz, Float8_e4m3fnuz, UInt16, UInt32, UInt64,
  Undefined, NumOptions
};
constexpr ScalarType kFloat16 = ScalarType::Half, kFloat32 = ScalarType::Float, kFloat64 = ScalarType::Double, kInt32 = ScalarType::Int, kInt64 = ScalarType::Long, kInt8 = ScalarType::Char, kUInt8 = ScalarType::Byte;
constexpr ScalarType kByte = ScalarType::Byte, kChar = ScalarType::Char, kShort = ScalarType::Short,
                     kInt = ScalarType::Int, kLong = ScalarType::Long, kHalf = ScalarType::Half,
                     kFloat = ScalarType::Float, kDouble = ScalarType::Double,
                     kBool = ScalarType::Bool, kBFloat16 = ScalarType::BFloat16,
                     kUInt16 = ScalarType::UInt16, kUInt32 = ScalarType::UInt32,
                     kUInt64 = ScalarType::UInt64, kFloat8_e4m3fn = ScalarType::Float8_e4m3fn,
                     kFloat8_e5m2 = ScalarType::Float8_e5m2, kComplexFloat = ScalarType::ComplexFloat,
                     kComplexDouble = ScalarType::ComplexDouble;
const char* toString(ScalarType t);
size_t elementSize(ScalarType t);
inline std::ostream& operator<<(std::ostream& s, ScalarType t) { return s << toString(t); }

struct Half {
  uint16_t x;
  Half() = default;
  FASTCI_STUB_HOST_DEVICE Half(float value);
  FASTCI_STUB_HOST_DEVICE operator float() const;
};
struct BFloat16 {
  uint16_t x;
  BFloat16() = default;
  FASTCI_STUB_HOST_DEVICE BFloat16(float value);
  FASTCI_STUB_HOST_DEVICE operator float() const;
};
struct Float8_e4m3fn { uint8_t x; Float8_e4m3fn() = default; Float8_e4m3fn(float); operator float() const; };
struct Float8_e5m2 { uint8_t x; Float8_e5m2() = default; Float8_e5m2(float); operator float() const; };
template <typename T> struct complex { T real_, imag_; };

template <ScalarType S> struct ScalarTypeToCPPType;
#define FASTCI_STUB_SCALAR(cpp, name) \
  template <> struct ScalarTypeToCPPType<ScalarType::name> { using type = cpp; };
FASTCI_STUB_SCALAR(uint8_t, Byte) FASTCI_STUB_SCALAR(int8_t, Char) FASTCI_STUB_SCALAR(int16_t, Short)
FASTCI_STUB_SCALAR(int, Int) FASTCI_STUB_SCALAR(int64_t, Long) FASTCI_STUB_SCALAR(Half, Half)
FASTCI_STUB_SCALAR(float, Float) FASTCI_STUB_SCALAR(double, Double) FASTCI_STUB_SCALAR(bool, Bool)
FASTCI_STUB_SCALAR(BFloat16, BFloat16) FASTCI_STUB_SCALAR(Float8_e4m3fn, Float8_e4m3fn)
FASTCI_STUB_SCALAR(Float8_e5m2, Float8_e5m2) FASTCI_STUB_SCALAR(complex<float>, ComplexFloat)
FASTCI_STUB_SCALAR(complex<double>, ComplexDouble)
#undef FASTCI_STUB_SCALAR
namespace impl {
template <ScalarType S> using ScalarTypeToCPPTypeT = typename ScalarTypeToCPPType<S>::type;
}
// As in c10: an integral_constant, so `CppTypeToScalarType<T>()` converts to the ScalarType.
template <typename T> struct CppTypeToScalarType : std::integral_constant<ScalarType, ScalarType::Undefined> {};

template <typename T>
class ArrayRef {
 public:
  ArrayRef() = default;
  ArrayRef(const T& one);
  ArrayRef(const T* data, size_t length);
  ArrayRef(const std::vector<T>& values);
  ArrayRef(std::initializer_list<T> values);
  const T* begin() const;
  const T* end() const;
  const T* data() const;
  size_t size() const;
  bool empty() const;
  const T& operator[](size_t index) const;
  const T& front() const;
  const T& back() const;
  std::vector<T> vec() const;
};
using IntArrayRef = ArrayRef<int64_t>;
template <typename T> using OptionalArrayRef = std::optional<ArrayRef<T>>;
template <typename T> using optional = std::optional<T>;
using std::nullopt;
using std::make_optional;
using string_view = std::string_view;

enum class DeviceType : int8_t { CPU = 0, CUDA = 1, HIP = 6, XPU = 12, Meta = 14, PrivateUse1 = 19 };
constexpr DeviceType kCPU = DeviceType::CPU, kCUDA = DeviceType::CUDA, kHIP = DeviceType::HIP,
                     kXPU = DeviceType::XPU, kMeta = DeviceType::Meta;
using DeviceIndex = int8_t;
struct Device {
  Device(DeviceType type, DeviceIndex index = -1);
  Device(const std::string& description);
  Device(const char* description);
  DeviceType type() const;
  DeviceIndex index() const;
  bool has_index() const;
  bool is_cuda() const;
  bool is_cpu() const;
  bool operator==(const Device& other) const;
  bool operator!=(const Device& other) const;
  std::string str() const;
};
enum class Layout : int8_t { Strided, Sparse, SparseCsr, Mkldnn };
constexpr Layout kStrided = Layout::Strided, kSparse = Layout::Sparse;
enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };

enum class DispatchKey : uint16_t {
  Undefined, CPU, CUDA, HIP, XPU, MPS, Meta, PrivateUse1, QuantizedCPU, QuantizedCUDA, SparseCPU,
  SparseCUDA, Autograd, AutogradCPU, AutogradCUDA, AutogradXPU, AutogradMeta, Functionalize,
  CompositeImplicitAutograd, CompositeExplicitAutograd, CompositeExplicitAutogradNonFunctional,
  BackendSelect, Python, FuncTorchBatched, Autocast, AutocastCPU, AutocastCUDA
};

class TypeMeta {
 public:
  template <typename T> static TypeMeta Make();
  ScalarType toScalarType() const;
  size_t itemsize() const;
  const char* name() const;
  bool operator==(const TypeMeta& other) const;
  bool operator!=(const TypeMeta& other) const;
  bool operator==(ScalarType other) const;
  bool operator!=(ScalarType other) const;
};
ScalarType typeMetaToScalarType(TypeMeta meta);
TypeMeta scalarTypeToTypeMeta(ScalarType type);

class Scalar {
 public:
  Scalar();
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>> Scalar(T value);
  Scalar(Half value);
  Scalar(BFloat16 value);
  template <typename T> T to() const;
  double toDouble() const;
  float toFloat() const;
  int64_t toLong() const;
  bool toBool() const;
};

class Storage {
 public:
  void* data() const;
  void* mutable_data() const;
  size_t nbytes() const;
};

template <typename T>
class intrusive_ptr {
 public:
  intrusive_ptr();
  intrusive_ptr(std::nullptr_t);
  T* get() const;
  T* operator->() const;
  T& operator*() const;
  explicit operator bool() const;
  template <typename... A> static intrusive_ptr make(A&&... args);
  T* release();
  static intrusive_ptr reclaim(T* owning);
};
template <typename T, typename... A> intrusive_ptr<T> make_intrusive(A&&... args);
class intrusive_ptr_target {
 public:
  virtual ~intrusive_ptr_target();
};

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct ValueError : Error { using Error::Error; };
struct NotImplementedError : Error { using Error::Error; };

namespace detail {
template <typename... A> std::string str(const A&... args);
[[noreturn]] void torchCheckFail(const char* function, const char* file, uint32_t line,
                                 const std::string& message);
}  // namespace detail
template <typename... A> std::string str(const A&... args);

}  // namespace c10

#define TORCH_CHECK(cond, ...) \
  do { if (!(cond)) ::c10::detail::torchCheckFail(__func__, __FILE__, __LINE__, ::c10::str(__VA_ARGS__)); } while (0)
#define TORCH_CHECK_VALUE(cond, ...) TORCH_CHECK(cond, __VA_ARGS__)
#define TORCH_CHECK_NOT_IMPLEMENTED(cond, ...) TORCH_CHECK(cond, __VA_ARGS__)
#define TORCH_INTERNAL_ASSERT(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define TORCH_INTERNAL_ASSERT_DEBUG_ONLY(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define TORCH_WARN(...) ((void)::c10::str(__VA_ARGS__))
#define TORCH_WARN_ONCE(...) ((void)::c10::str(__VA_ARGS__))
#define AT_ASSERT(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define AT_ASSERTM(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define AT_CHECK(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define AT_ERROR(...) ::c10::detail::torchCheckFail(__func__, __FILE__, __LINE__, ::c10::str(__VA_ARGS__))
#define C10_UNUSED [[maybe_unused]]
#define C10_LIKELY(x) (x)
#define C10_UNLIKELY(x) (x)
#define C10_API
#define TORCH_API
#define C10_HOST_DEVICE FASTCI_STUB_HOST_DEVICE
#define C10_DEVICE
#define C10_HOST

namespace at {
using namespace c10;
using c10::Half;
using c10::BFloat16;
using c10::ScalarType;
using c10::IntArrayRef;

class Tensor;
/// `Tensor::accessor<T, N>()`: indexing N times yields a T&.
template <typename T, size_t N> struct TensorAccessor {
  TensorAccessor<T, N - 1> operator[](int64_t i) const;
  int64_t size(int64_t dim) const;
  const int64_t* sizes() const;
  const int64_t* strides() const;
  T* data() const;
};
template <typename T> struct TensorAccessor<T, 1> {
  T& operator[](int64_t i) const;
  int64_t size(int64_t dim) const;
  T* data() const;
};
/// What the deprecated `Tensor::type()` returns; older extensions read its scalar type.
struct DeprecatedTypeProperties {
  ScalarType scalarType() const;
  bool is_cuda() const;
  bool is_sparse() const;
  Device device() const;
};
class TensorOptions {
 public:
  TensorOptions();
  TensorOptions(ScalarType dtype);
  TensorOptions(TypeMeta dtype);
  TensorOptions(Device device);
  TensorOptions(DeviceType device);
  TensorOptions(Layout layout);
  TensorOptions(MemoryFormat format);
  TensorOptions dtype(ScalarType dtype) const;
  TensorOptions dtype(TypeMeta dtype) const;
  template <typename T> TensorOptions dtype() const;
  TypeMeta dtype() const;
  TensorOptions device(Device device) const;
  TensorOptions device(DeviceType type, DeviceIndex index = -1) const;
  Device device() const;
  TensorOptions device_index(DeviceIndex index) const;
  DeviceIndex device_index() const;
  TensorOptions layout(Layout layout) const;
  Layout layout() const;
  TensorOptions requires_grad(bool value) const;
  bool requires_grad() const;
  TensorOptions pinned_memory(bool value) const;
  bool pinned_memory() const;
  TensorOptions memory_format(MemoryFormat format) const;
};
TensorOptions dtype(ScalarType dtype);
TensorOptions dtype(TypeMeta dtype);
template <typename T> TensorOptions dtype();
TensorOptions device(Device device);
TensorOptions device(DeviceType device);
TensorOptions layout(Layout layout);
TensorOptions requires_grad(bool value = true);

namespace indexing {
struct None {};
constexpr None none{};
struct EllipsisIndexType {};
constexpr EllipsisIndexType Ellipsis{};
struct Slice {
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt);
};
struct TensorIndex {
  template <typename T> TensorIndex(T value);
  TensorIndex(std::initializer_list<TensorIndex> values);
};
}  // namespace indexing

class Tensor {
 public:
  Tensor();
  Tensor(const Tensor&);
  Tensor(Tensor&&);
  Tensor& operator=(const Tensor&) &;
  Tensor& operator=(Tensor&&) &;
  Tensor& operator=(const Tensor&) &&;
  Tensor& operator=(const Scalar&) &&;
  ~Tensor();
  int64_t size(int64_t dim) const;
  IntArrayRef sizes() const;
  int64_t stride(int64_t dim) const;
  IntArrayRef strides() const;
  int64_t numel() const;
  int64_t dim() const;
  int64_t ndimension() const;
  size_t nbytes() const;
  size_t element_size() const;
  size_t itemsize() const;
  int64_t storage_offset() const;
  Storage storage() const;
  bool defined() const;
  bool is_cuda() const;
  bool is_cpu() const;
  bool is_xpu() const;
  bool is_meta() const;
  bool is_sparse() const;
  bool is_pinned() const;
  bool is_floating_point() const;
  bool is_contiguous(MemoryFormat format = MemoryFormat::Contiguous) const;
  bool requires_grad() const;
  bool is_same(const Tensor& other) const;
  bool equal(const Tensor& other) const;
  int64_t get_device() const;
  Device device() const;
  TensorOptions options() const;
  TypeMeta dtype() const;
  ScalarType scalar_type() const;
  DeprecatedTypeProperties& type() const;
  template <typename T, size_t N> TensorAccessor<T, N> accessor() const&;
  Layout layout() const;
  void* data_ptr() const;
  template <typename T> T* data_ptr() const;
  template <typename T> T* data() const;
  const void* const_data_ptr() const;
  template <typename T> const T* const_data_ptr() const;
  void* mutable_data_ptr() const;
  template <typename T> T* mutable_data_ptr() const;
  template <typename T> T item() const;
  Scalar item() const;
  std::string toString() const;
  Tensor contiguous(MemoryFormat format = MemoryFormat::Contiguous) const;
  Tensor clone(std::optional<MemoryFormat> format = std::nullopt) const;
  Tensor detach() const;
  Tensor& detach_();
  Tensor cpu() const;
  Tensor cuda() const;
  Tensor pin_memory() const;
  Tensor to(TensorOptions options, bool non_blocking = false, bool copy = false) const;
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device device, bool non_blocking = false, bool copy = false) const;
  Tensor to(const Tensor& other, bool non_blocking = false, bool copy = false) const;
  Tensor view(IntArrayRef size) const;
  Tensor view(ScalarType dtype) const;
  Tensor reshape(IntArrayRef size) const;
  Tensor view_as(const Tensor& other) const;
  Tensor reshape_as(const Tensor& other) const;
  Tensor expand(IntArrayRef size, bool implicit = false) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor flatten(int64_t start = 0, int64_t end = -1) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor slice(int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  Tensor index(ArrayRef<indexing::TensorIndex> indices) const;
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& value);
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& value);
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor transpose(int64_t a, int64_t b) const;
  Tensor& transpose_(int64_t a, int64_t b);
  Tensor permute(IntArrayRef dims) const;
  Tensor t() const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> split(int64_t size, int64_t dim = 0) const;
  Tensor& copy_(const Tensor& source, bool non_blocking = false);
  Tensor& fill_(const Scalar& value);
  Tensor& zero_();
  Tensor& resize_(IntArrayRef size, std::optional<MemoryFormat> format = std::nullopt);
  Tensor& set_(const Tensor& source);
  Tensor& set_requires_grad(bool value);
  Tensor& add_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& add_(const Scalar& other, const Scalar& alpha = 1);
  Tensor& sub_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& mul_(const Tensor& other);
  Tensor& mul_(const Scalar& other);
  Tensor& div_(const Tensor& other);
  Tensor& div_(const Scalar& other);
  Tensor& addcmul_(const Tensor& a, const Tensor& b, const Scalar& value = 1);
  Tensor& addcdiv_(const Tensor& a, const Tensor& b, const Scalar& value = 1);
  Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
  Tensor& sqrt_();
  Tensor& abs_();
  Tensor& neg_();
  Tensor& uniform_(double from = 0, double to = 1);
  Tensor& normal_(double mean = 0, double std = 1);
  Tensor& masked_fill_(const Tensor& mask, const Scalar& value);
  Tensor& index_fill_(int64_t dim, const Tensor& index, const Scalar& value);
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& source);
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor add(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  Tensor mul(const Scalar& other) const;
  Tensor div(const Tensor& other) const;
  Tensor div(const Scalar& other) const;
  Tensor pow(const Scalar& exponent) const;
  Tensor sqrt() const;
  Tensor abs() const;
  Tensor neg() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor sum() const;
  Tensor sum(IntArrayRef dims, bool keepdim = false) const;
  Tensor mean() const;
  Tensor mean(IntArrayRef dims, bool keepdim = false) const;
  Tensor max() const;
  Tensor min() const;
  Tensor norm() const;
  Tensor amax(IntArrayRef dims = {}, bool keepdim = false) const;
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& other) const;
  Tensor bmm(const Tensor& other) const;
  Tensor float_() const;
  Tensor half() const;
  Tensor bfloat16() const;
  Tensor toType(ScalarType type) const;
  Tensor type_as(const Tensor& other) const;
  Tensor repeat(IntArrayRef repeats) const;
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor gather(int64_t dim, const Tensor& index) const;
  Tensor ne(const Scalar& other) const;
  Tensor eq(const Scalar& other) const;
  Tensor any() const;
  Tensor all() const;
  Tensor operator[](int64_t index) const;
  Tensor operator[](const Tensor& index) const;
  Tensor operator-() const;
  Tensor& operator+=(const Tensor& other);
  Tensor& operator+=(const Scalar& other);
  Tensor& operator-=(const Tensor& other);
  Tensor& operator*=(const Tensor& other);
  Tensor& operator*=(const Scalar& other);
  Tensor& operator/=(const Tensor& other);
  Tensor& operator/=(const Scalar& other);
  template <typename F> auto register_hook(F&& hook) const;
  const Tensor& grad() const;
  Tensor& mutable_grad();
};
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Scalar& b);
Tensor operator!=(const Tensor& a, const Scalar& b);
Tensor operator<(const Tensor& a, const Scalar& b);
Tensor operator>(const Tensor& a, const Scalar& b);
std::ostream& operator<<(std::ostream& s, const Tensor& t);
using TensorList = ArrayRef<Tensor>;
using ITensorListRef = ArrayRef<Tensor>;
using OptionalTensorRef = const Tensor*;

Tensor empty(IntArrayRef size, TensorOptions options = {},
             std::optional<MemoryFormat> format = std::nullopt);
Tensor empty_strided(IntArrayRef size, IntArrayRef stride, TensorOptions options = {});
Tensor zeros(IntArrayRef size, TensorOptions options = {});
Tensor ones(IntArrayRef size, TensorOptions options = {});
Tensor full(IntArrayRef size, const Scalar& value, TensorOptions options = {});
Tensor rand(IntArrayRef size, TensorOptions options = {});
Tensor randn(IntArrayRef size, TensorOptions options = {});
Tensor randint(int64_t high, IntArrayRef size, TensorOptions options = {});
Tensor arange(const Scalar& end, TensorOptions options = {});
Tensor arange(const Scalar& start, const Scalar& end, TensorOptions options = {});
Tensor tensor(ArrayRef<float> values, TensorOptions options = {});
Tensor tensor(ArrayRef<int64_t> values, TensorOptions options = {});
Tensor tensor(ArrayRef<int> values, TensorOptions options = {});
Tensor scalar_tensor(const Scalar& value, TensorOptions options = {});
Tensor empty_like(const Tensor& other, TensorOptions options = {},
                  std::optional<MemoryFormat> format = std::nullopt);
Tensor zeros_like(const Tensor& other, TensorOptions options = {});
Tensor ones_like(const Tensor& other, TensorOptions options = {});
Tensor full_like(const Tensor& other, const Scalar& value, TensorOptions options = {});
Tensor rand_like(const Tensor& other, TensorOptions options = {});
Tensor randn_like(const Tensor& other, TensorOptions options = {});
Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions options = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, TensorOptions options = {});
Tensor from_blob(void* data, IntArrayRef sizes, const std::function<void(void*)>& deleter,
                 TensorOptions options = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                 const std::function<void(void*)>& deleter, TensorOptions options = {});
Tensor cat(TensorList tensors, int64_t dim = 0);
Tensor stack(TensorList tensors, int64_t dim = 0);
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta = 1,
             const Scalar& alpha = 1);
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});
Tensor softmax(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor clamp(const Tensor& input, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
Tensor abs(const Tensor& input);
Tensor sqrt(const Tensor& input);
Tensor exp(const Tensor& input);
Tensor sum(const Tensor& input);
Tensor max(const Tensor& input);
Tensor norm(const Tensor& input);
Tensor _cast_Half(const Tensor& input);
int64_t numel(const Tensor& t);
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);
void manual_seed(uint64_t seed);
std::vector<Tensor> split(const Tensor& input, int64_t size, int64_t dim = 0);
Tensor& native_resize_(Tensor& self, IntArrayRef size);
void checkDim(const char* c, const Tensor& t, const char* name, int pos, int64_t dim);
struct Type {};

template <typename T, bool is_cuda> struct AccumulateType { using type = float; };
template <> struct AccumulateType<double, true> { using type = double; };
template <> struct AccumulateType<double, false> { using type = double; };
template <typename T, bool is_cuda> using acc_type = typename AccumulateType<T, is_cuda>::type;

struct AutoDispatchBelowAutograd { AutoDispatchBelowAutograd(); };
struct AutoDispatchSkipFunctionalize { AutoDispatchSkipFunctionalize(); };
struct NoGradGuard { NoGradGuard(); };
namespace functionalization::impl {
bool isFunctionalTensor(const Tensor& t);
void sync(const Tensor& t);
Tensor from_functional_tensor(const Tensor& t);
void replace_(const Tensor& functional, const Tensor& other);
void commit_update(const Tensor& functional);
}  // namespace functionalization::impl
namespace native {
void resize_bytes_cuda(Storage storage, size_t size);
}
}  // namespace at

namespace c10 {
class IValue {
 public:
  IValue();
  template <typename T> IValue(T value);
  at::Tensor toTensor() const;
  int64_t toInt() const;
  double toDouble() const;
  bool toBool() const;
  std::string toStringRef() const;
  bool isTensor() const;
  bool isInt() const;
  bool isNone() const;
};
template <typename Signature> class TypedOperatorHandle;
template <typename R, typename... A>
class TypedOperatorHandle<R(A...)> {
 public:
  R call(A... args) const;
  R redispatch(A... args) const;
};
class OperatorHandle {
 public:
  template <typename Signature> TypedOperatorHandle<Signature> typed() const;
};
class Dispatcher {
 public:
  static Dispatcher& singleton();
  OperatorHandle findSchemaOrThrow(const char* name, const char* overload);
};
}  // namespace c10

#define AT_PRIVATE_CASE_TYPE(enum_type, type, ...) \
  case enum_type: { using scalar_t = type; return __VA_ARGS__(); }
#define FASTCI_STUB_DISPATCH_CASE(ST, ...) \
  case ST: { using scalar_t [[maybe_unused]] = ::c10::impl::ScalarTypeToCPPTypeT<ST>; return __VA_ARGS__(); }
#define FASTCI_STUB_DISPATCH_SWITCH(TYPE, NAME, CASES) \
  [&] { const ::c10::ScalarType fastci_dispatch_type = (TYPE); (void)(NAME); \
        switch (fastci_dispatch_type) { CASES default: ::c10::detail::torchCheckFail(__func__, __FILE__, __LINE__, NAME); } }()
#define FASTCI_STUB_FLOATING(...) \
  FASTCI_STUB_DISPATCH_CASE(::c10::ScalarType::Double, __VA_ARGS__) \
  FASTCI_STUB_DISPATCH_CASE(::c10::ScalarType::Float, __VA_ARGS__)
#define FASTCI_STUB_INTEGRAL(...) \
  FASTCI_STUB_DISPATCH_CASE(::c10::ScalarType::Byte, __VA_ARGS__) \
  FASTCI_STUB_DISPATCH_CASE(::c10::ScalarType::Char, __VA_ARGS__) \
  FASTCI_STUB_DISPATCH_CASE(::c10::ScalarType::Int, __VA_ARGS__) \
  FASTCI_STUB_DISPATCH_CASE(::c10::ScalarType::Long, __VA_ARGS__) \
  FASTCI_STUB_DISPATCH_CASE(::c10::ScalarType::Short, __VA_ARGS__)
#define AT_DISPATCH_SWITCH(TYPE, NAME, ...) FASTCI_STUB_DISPATCH_SWITCH(TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_CASE(ST, ...) FASTCI_STUB_DISPATCH_CASE(ST, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) \
  FASTCI_STUB_DISPATCH_SWITCH(TYPE, NAME, FASTCI_STUB_FLOATING(__VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...) \
  FASTCI_STUB_DISPATCH_SWITCH(TYPE, NAME, FASTCI_STUB_FLOATING(__VA_ARGS__) \
    FASTCI_STUB_DISPATCH_CASE(::c10::ScalarType::Half, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND(T1, TYPE, NAME, ...) \
  FASTCI_STUB_DISPATCH_SWITCH(TYPE, NAME, FASTCI_STUB_FLOATING(__VA_ARGS__) \
    FASTCI_STUB_DISPATCH_CASE(T1, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND2(T1, T2, TYPE, NAME, ...) \
  FASTCI_STUB_DISPATCH_SWITCH(TYPE, NAME, FASTCI_STUB_FLOATING(__VA_ARGS__) \
    FASTCI_STUB_DISPATCH_CASE(T1, __VA_ARGS__) FASTCI_STUB_DISPATCH_CASE(T2, __VA_ARGS__))
#define AT_DISPATCH_REDUCED_FLOATING_TYPES(TYPE, NAME, ...) \
  FASTCI_STUB_DISPATCH_SWITCH(TYPE, NAME, \
    FASTCI_STUB_DISPATCH_CASE(::c10::ScalarType::Half, __VA_ARGS__) \
    FASTCI_STUB_DISPATCH_CASE(::c10::ScalarType::BFloat16, __VA_ARGS__))
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) \
  FASTCI_STUB_DISPATCH_SWITCH(TYPE, NAME, FASTCI_STUB_INTEGRAL(__VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) \
  FASTCI_STUB_DISPATCH_SWITCH(TYPE, NAME, FASTCI_STUB_FLOATING(__VA_ARGS__) FASTCI_STUB_INTEGRAL(__VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND(T1, TYPE, NAME, ...) \
  FASTCI_STUB_DISPATCH_SWITCH(TYPE, NAME, FASTCI_STUB_FLOATING(__VA_ARGS__) FASTCI_STUB_INTEGRAL(__VA_ARGS__) \
    FASTCI_STUB_DISPATCH_CASE(T1, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND2(T1, T2, TYPE, NAME, ...) \
  FASTCI_STUB_DISPATCH_SWITCH(TYPE, NAME, FASTCI_STUB_FLOATING(__VA_ARGS__) FASTCI_STUB_INTEGRAL(__VA_ARGS__) \
    FASTCI_STUB_DISPATCH_CASE(T1, __VA_ARGS__) FASTCI_STUB_DISPATCH_CASE(T2, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND_HALF(TYPE, NAME, ...) \
  AT_DISPATCH_ALL_TYPES_AND(::c10::ScalarType::Half, TYPE, NAME, __VA_ARGS__)

namespace at { enum class Tag { core, pt2_compliant_tag, needs_fixed_stride_order }; }

namespace torch {
using namespace at;
using at::Tensor;
namespace indexing = at::indexing;
using c10::Dispatcher;
using c10::DispatchKey;
using c10::IValue;

/// A function pointer known at compile time, as torch's TORCH_FN builds it.
template <typename F, F* Function>
struct CompileTimeFunctionPointer {
  static constexpr F* func_ptr() { return Function; }
};

class CppFunction {
 public:
  template <typename F> explicit CppFunction(F* function);
  template <typename F, F* Function> explicit CppFunction(CompileTimeFunctionPointer<F, Function>);
  template <typename Lambda> explicit CppFunction(Lambda&&) {}
  static CppFunction makeFallthrough();
};
template <typename F> CppFunction dispatch(c10::DispatchKey, F&& function) { return CppFunction(function); }
template <typename F> CppFunction dispatch(c10::DeviceType, F&& function) { return CppFunction(function); }

enum class AliasAnalysisKind { CONSERVATIVE, FROM_SCHEMA, PURE_FUNCTION };
struct FunctionSchema {};
FunctionSchema schema(const char* text, AliasAnalysisKind kind = AliasAnalysisKind::FROM_SCHEMA);

/// The registration object TORCH_LIBRARY and TORCH_LIBRARY_IMPL blocks receive.
class Library {
 public:
  enum Kind { DEF, IMPL, FRAGMENT };
  template <typename Schema> Library& def(Schema&& schema, const std::vector<at::Tag>& tags = {});
  template <typename Schema, typename F> Library& def(Schema&&, F&&) { return *this; }
  template <typename Name, typename F> Library& impl(Name, F&&) { return *this; }
  template <typename F> Library& fallback(F&&) { return *this; }
  template <typename... A> Library& set_python_module(A&&...);
};
namespace detail {
class TorchLibraryInit {
 public:
  TorchLibraryInit(Library::Kind kind, void (*init)(Library&), const char* ns,
                   std::optional<c10::DispatchKey> key, const char* file, uint32_t line);
};
}  // namespace detail
namespace autograd {
struct AutogradContext {
  template <typename... A> void save_for_backward(A&&...);
  std::vector<at::Tensor> get_saved_variables() const;
};
template <typename T> struct Function {
  template <typename... A> static auto apply(A&&... args);
};
using variable_list = std::vector<at::Tensor>;
}  // namespace autograd
namespace cuda {
bool is_available();
int device_count();
void synchronize(int64_t device = -1);
}  // namespace cuda
namespace jit {}
}  // namespace torch

#define TORCH_FN(function) ::torch::CompileTimeFunctionPointer<std::remove_pointer_t<std::remove_reference_t<decltype(function)>>, function>()
#define FASTCI_STUB_CONCAT_(a, b) a##b
#define FASTCI_STUB_CONCAT(a, b) FASTCI_STUB_CONCAT_(a, b)
#define TORCH_LIBRARY(ns, m) \
  static void TORCH_LIBRARY_init_##ns(::torch::Library&); \
  static const ::torch::detail::TorchLibraryInit TORCH_LIBRARY_static_init_##ns( \
      ::torch::Library::DEF, &TORCH_LIBRARY_init_##ns, #ns, ::std::nullopt, __FILE__, __LINE__); \
  void TORCH_LIBRARY_init_##ns(::torch::Library& m)
#define TORCH_LIBRARY_FRAGMENT(ns, m) _TORCH_LIBRARY_FRAGMENT(ns, m, FASTCI_STUB_CONCAT(fastci_uid_, __COUNTER__))
#define _TORCH_LIBRARY_FRAGMENT(ns, m, uid) \
  static void FASTCI_STUB_CONCAT(TORCH_LIBRARY_FRAGMENT_init_##ns##_, uid)(::torch::Library&); \
  static const ::torch::detail::TorchLibraryInit FASTCI_STUB_CONCAT(TORCH_LIBRARY_FRAGMENT_static_init_##ns##_, uid)( \
      ::torch::Library::FRAGMENT, &FASTCI_STUB_CONCAT(TORCH_LIBRARY_FRAGMENT_init_##ns##_, uid), #ns, \
      ::std::nullopt, __FILE__, __LINE__); \
  void FASTCI_STUB_CONCAT(TORCH_LIBRARY_FRAGMENT_init_##ns##_, uid)(::torch::Library& m)
#define TORCH_LIBRARY_IMPL(ns, k, m) _TORCH_LIBRARY_IMPL(ns, k, m, FASTCI_STUB_CONCAT(fastci_uid_, __COUNTER__))
#define _TORCH_LIBRARY_IMPL(ns, k, m, uid) \
  static void FASTCI_STUB_CONCAT(TORCH_LIBRARY_IMPL_init_##ns##_##k##_, uid)(::torch::Library&); \
  static const ::torch::detail::TorchLibraryInit FASTCI_STUB_CONCAT(TORCH_LIBRARY_IMPL_static_init_##ns##_##k##_, uid)( \
      ::torch::Library::IMPL, &FASTCI_STUB_CONCAT(TORCH_LIBRARY_IMPL_init_##ns##_##k##_, uid), #ns, \
      ::std::make_optional(::c10::DispatchKey::k), __FILE__, __LINE__); \
  void FASTCI_STUB_CONCAT(TORCH_LIBRARY_IMPL_init_##ns##_##k##_, uid)(::torch::Library& m)
