// Declaration-only stand-in for pybind11: modules, classes, arguments and the macros that define
// extension modules, with the same names and call shapes as the real library.
#pragma once
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace pybind11 {
class handle {
 public:
  handle();
  handle(std::nullptr_t);
  template <typename T> T cast() const;
  bool is_none() const;
  explicit operator bool() const;
  template <typename... A> class object operator()(A&&... args) const;
  class object attr(const char* name) const;
  void* ptr() const;
  bool check() const;
  void inc_ref() const;
  void dec_ref() const;
};
class object : public handle {
 public:
  object();
  object(const handle& h, bool borrowed = true);
  handle release();
};
class str : public object { public: str(); str(const char*); str(const std::string&); operator std::string() const; };
class bytes : public object { public: bytes(); bytes(const char*); bytes(const std::string&); operator std::string() const; };
class int_ : public object { public: int_(); template <typename T> int_(T value); template <typename T> operator T() const; };
class float_ : public object { public: float_(); float_(double value); operator double() const; };
class bool_ : public object { public: bool_(); bool_(bool value); operator bool() const; };
class none : public object { public: none(); };
class capsule : public object { public: capsule(); capsule(const void* value, void (*destructor)(void*) = nullptr); template <typename T> operator T*() const; };
class tuple : public object { public: tuple(); explicit tuple(size_t size); size_t size() const; object operator[](size_t index) const; };
class list : public object { public: list(); explicit list(size_t size); size_t size() const; object operator[](size_t index) const; template <typename T> void append(T&& value); };
class dict : public object { public: dict(); size_t size() const; object operator[](const char* key) const; bool contains(const char* key) const; };
class args : public tuple {};
class kwargs : public dict {};
class function : public object {};
// numpy arrays as Megatron-LM's dataset helpers and DeepSpeed's bindings use them.
using ssize_t = std::ptrdiff_t;
namespace detail {
/// Shapes and strides: a braced list or any container of integers.
struct any_container {
  any_container(std::initializer_list<ssize_t> values);
  template <typename Container, typename = decltype(std::begin(std::declval<const Container&>()))>
  any_container(const Container& values);
};
template <typename T, ssize_t Dims> class unchecked_reference {
 public:
  template <typename... Ix> const T& operator()(Ix... index) const;
  const T& operator[](ssize_t index) const;
  ssize_t shape(ssize_t dim) const;
  ssize_t size() const;
  ssize_t ndim() const;
};
template <typename T, ssize_t Dims> class unchecked_mutable_reference : public unchecked_reference<T, Dims> {
 public:
  template <typename... Ix> T& operator()(Ix... index);
  T& operator[](ssize_t index);
};
}  // namespace detail
using ShapeContainer = detail::any_container;
using StridesContainer = detail::any_container;
class array : public object {
 public:
  array();
  template <typename T> array(ShapeContainer shape, StridesContainer strides, const T* ptr, handle base = handle());
  template <typename T> array(ShapeContainer shape, const T* ptr, handle base = handle());
  void* mutable_data();
  const void* data() const;
  ssize_t size() const;
  ssize_t ndim() const;
  ssize_t itemsize() const;
  ssize_t nbytes() const;
  ssize_t shape(ssize_t dim) const;
  const ssize_t* shape() const;
  ssize_t strides(ssize_t dim) const;
};
template <typename T, int Flags = 0> class array_t : public array {
 public:
  array_t();
  explicit array_t(ssize_t count, const T* ptr = nullptr, handle base = handle());
  array_t(ShapeContainer shape, StridesContainer strides, const T* ptr = nullptr, handle base = handle());
  array_t(ShapeContainer shape, const T* ptr = nullptr, handle base = handle());
  const T* data() const;
  T* mutable_data();
  template <ssize_t Dims = -1> detail::unchecked_reference<T, Dims> unchecked() const;
  template <ssize_t Dims = -1> detail::unchecked_mutable_reference<T, Dims> mutable_unchecked();
  template <typename... Ix> const T& at(Ix... index) const;
  template <typename... Ix> T& mutable_at(Ix... index);
};
class buffer : public object {};
class buffer_info { public: void* ptr; size_t itemsize; std::string format; size_t ndim; std::vector<size_t> shape; std::vector<size_t> strides; };
class error_already_set : public std::exception {
 public:
  const char* what() const noexcept override;
  void discard_as_unraisable(const char* err_context);
  void restore();
  bool matches(handle exc) const;
};
class value_error : public std::exception {};
class type_error : public std::exception {};

template <typename T> T cast(const handle& h);
template <typename T> object cast(T&& value);
template <typename T> bool isinstance(handle obj);
bool hasattr(handle obj, const char* name);
object getattr(handle obj, const char* name);
object getattr(handle obj, const char* name, handle default_value);
void setattr(handle obj, const char* name, handle value);
void print(handle obj);
template <typename... A> tuple make_tuple(A&&... args);

struct arg {
  constexpr explicit arg(const char* name) : name(name) {}
  template <typename T> struct arg_v operator=(T&& value) const;
  arg& noconvert(bool flag = true);
  arg& none(bool flag = true);
  const char* name;
};
struct arg_v : arg { using arg::arg; };
struct kw_only {};
struct pos_only {};
struct doc { explicit doc(const char* value); };
struct name { explicit name(const char* value); };
struct is_method { explicit is_method(const handle& h); };
struct sibling { explicit sibling(const handle& h); };
struct dynamic_attr {};
struct buffer_protocol {};
struct module_local { explicit module_local(bool value = true); };
struct keep_alive_base {};
template <size_t Nurse, size_t Patient> struct keep_alive : keep_alive_base {};
template <typename... Guards> struct call_guard {};
enum class return_value_policy : unsigned char {
  automatic, automatic_reference, take_ownership, copy, move, reference, reference_internal
};
class gil_scoped_release { public: gil_scoped_release(); ~gil_scoped_release(); };
class gil_scoped_acquire { public: gil_scoped_acquire(); ~gil_scoped_acquire(); };

namespace detail {
template <typename... Args> struct init_constructor {};
template <typename F> struct init_factory { F factory; };
}  // namespace detail
template <typename... Args> detail::init_constructor<Args...> init();
template <typename F> detail::init_factory<F> init(F&& factory) { return {factory}; }

template <typename... Args>
struct overload_cast_impl {
  template <typename Return> constexpr auto operator()(Return (*pf)(Args...)) const noexcept { return pf; }
  template <typename Return, typename Class>
  constexpr auto operator()(Return (Class::*pmf)(Args...), std::false_type = {}) const noexcept { return pmf; }
  template <typename Return, typename Class>
  constexpr auto operator()(Return (Class::*pmf)(Args...) const, std::true_type) const noexcept { return pmf; }
};
template <typename... Args> static constexpr overload_cast_impl<Args...> overload_cast{};
static constexpr std::true_type const_{};

/// A Python module: `def` binds a name to a C++ callable.
class module_ : public object {
 public:
  module_();
  explicit module_(const char* name, const char* doc = nullptr);
  template <typename Func, typename... Extra> module_& def(const char*, Func&&, const Extra&...) { return *this; }
  module_ def_submodule(const char* name, const char* doc = nullptr);
  static module_ import(const char* name);
  template <typename T> module_& add_object(const char* name, T&& value, bool overwrite = false);
  object attr(const char* name) const;
  const char* doc;
};
using module = module_;

/// A Python class wrapping the C++ type T.
template <typename T, typename... Options>
class class_ : public object {
 public:
  using type = T;
  template <typename... Extra> class_(handle scope, const char* name, const Extra&... extra);
  template <typename Func, typename... Extra> class_& def(const char* name, Func&& f, const Extra&... extra) { return *this; }
  template <typename... Args, typename... Extra> class_& def(detail::init_constructor<Args...> init, const Extra&... extra) { return *this; }
  template <typename F, typename... Extra> class_& def(detail::init_factory<F>&& init, const Extra&... extra) { return *this; }
  template <typename Func, typename... Extra> class_& def_static(const char* name, Func&& f, const Extra&... extra) { return *this; }
  template <typename C, typename D, typename... Extra> class_& def_readwrite(const char* name, D C::*pm, const Extra&... extra) { return *this; }
  template <typename C, typename D, typename... Extra> class_& def_readonly(const char* name, const D C::*pm, const Extra&... extra) { return *this; }
  template <typename Getter, typename... Extra> class_& def_property_readonly(const char* name, const Getter& fget, const Extra&... extra) { return *this; }
  template <typename Getter, typename Setter, typename... Extra> class_& def_property(const char* name, const Getter& fget, const Setter& fset, const Extra&... extra) { return *this; }
  template <typename Getter, typename... Extra> class_& def_property_readonly_static(const char* name, const Getter& fget, const Extra&... extra) { return *this; }
  template <typename Getter, typename Setter, typename... Extra> class_& def_property_static(const char* name, const Getter& fget, const Setter& fset, const Extra&... extra) { return *this; }
  template <typename Func> class_& def_buffer(Func&& f) { return *this; }
};
template <typename T>
class enum_ : public class_<T> {
 public:
  template <typename... Extra> enum_(const handle& scope, const char* name, const Extra&... extra);
  enum_& value(const char* name, T value, const char* doc = nullptr);
  enum_& export_values();
};
namespace literals {
arg operator""_a(const char* name, size_t);
}
}  // namespace pybind11

#define PYBIND11_CONCAT_(a, b) a##b
#define PYBIND11_CONCAT(a, b) PYBIND11_CONCAT_(a, b)
#define PYBIND11_TOSTRING_(x) #x
#define PYBIND11_TOSTRING(x) PYBIND11_TOSTRING_(x)
#define PYBIND11_MODULE(name, variable, ...) \
  static void PYBIND11_CONCAT(pybind11_init_, name)(::pybind11::module_&); \
  extern "C" void* PYBIND11_CONCAT(PyInit_, name)(); \
  void PYBIND11_CONCAT(pybind11_init_, name)(::pybind11::module_& variable)
#define PYBIND11_OVERRIDE(ret, base, fn, ...) return base::fn(__VA_ARGS__)
#define PYBIND11_OVERRIDE_PURE(ret, base, fn, ...) return ret()
#define PYBIND11_MAKE_OPAQUE(...)
#define PYBIND11_DECLARE_HOLDER_TYPE(...)
