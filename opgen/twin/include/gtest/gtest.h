// The twin's stand-in for the subset of GoogleTest the generated unit tests use (TEST, TEST_F, testing::Test,
// EXPECT_*/ASSERT_* with `<<` messages), header-only so they build with nothing but a C++17 compiler. The
// generated tests include "gtest/gtest.h" as ops-nn's do: `opgen cc` finds this file; in ops-nn's tree (or with
// real gtest's -I first) they build against real gtest and gtest_main. The built-in main runs every test in
// registration order and ends with the line "N passed, M failed"; the exit status is 1 if any test failed.
#ifndef OPGEN_TWIN_GTEST_GTEST_H_
#define OPGEN_TWIN_GTEST_GTEST_H_

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace testing {

class Test {
 public:
  virtual ~Test() = default;
  static void SetUpTestCase() {}
  static void TearDownTestCase() {}
  virtual void SetUp() {}
  virtual void TearDown() {}
  virtual void TestBody() = 0;
};

}  // namespace testing

namespace opgen_ut {

struct TestInfo {
  std::string suite;
  std::string name;
  std::function<testing::Test*()> make;
  void (*setUpSuite)();
  void (*tearDownSuite)();
};

inline std::vector<TestInfo>& Registry() {
  static std::vector<TestInfo> tests;
  return tests;
}

// Whether the running test has failed so far (EXPECT_* failures let it continue).
inline bool& CurrentTestFailed() {
  static bool failed = false;
  return failed;
}

inline bool Register(const char* suite, const char* name, std::function<testing::Test*()> make,
                     void (*setUpSuite)(), void (*tearDownSuite)()) {
  Registry().push_back({suite, name, std::move(make), setUpSuite, tearDownSuite});
  return true;
}

// Values print as numbers; enums through their underlying type.
template <typename T>
std::string Print(const T& value) {
  std::ostringstream out;
  if constexpr (std::is_enum_v<T>) {
    out << static_cast<long long>(value);
  } else if constexpr (std::is_same_v<T, bool>) {
    out << (value ? "true" : "false");
  } else if constexpr (std::is_same_v<T, std::nullptr_t>) {
    out << "nullptr";
  } else {
    out << value;
  }
  return out.str();
}

// The outcome of one check; converts to true when it passed.
struct CheckResult {
  bool passed;
  std::string text;
  explicit operator bool() const { return passed; }
};

template <typename A, typename B, typename Compare>
CheckResult CompareValues(const char* opText, const char* aText, const char* bText, const A& a, const B& b,
                          Compare compare) {
  if (compare(a, b)) {
    return {true, ""};
  }
  return {false, std::string("Expected: (") + aText + ") " + opText + " (" + bText + "), actual: " + Print(a) +
                     " vs " + Print(b)};
}

inline CheckResult CheckBool(bool value, bool expected, const char* text) {
  if (value == expected) {
    return {true, ""};
  }
  return {false, std::string("Value of: ") + text + "\n  Actual: " + (value ? "true" : "false") +
                     "\nExpected: " + (expected ? "true" : "false")};
}

inline CheckResult CheckNear(double a, double b, double absError, const char* aText, const char* bText) {
  if (std::fabs(a - b) <= absError) {
    return {true, ""};
  }
  std::ostringstream out;
  out << "The difference between " << aText << " and " << bText << " is " << std::fabs(a - b) << ", which exceeds "
      << absError << " (" << a << " vs " << b << ")";
  return {false, out.str()};
}

// Extra text streamed after a check: EXPECT_EQ(a, b) << "for size " << n;
class Message {
 public:
  template <typename T>
  Message& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }
  std::string str() const { return stream_.str(); }

 private:
  std::ostringstream stream_;
};

class Failure {
 public:
  Failure(const char* file, int line, std::string text) : file_(file), line_(line), text_(std::move(text)) {}
  // Reports when the streamed message is attached (the assignment ends the check statement).
  void operator=(const Message& message) const {
    CurrentTestFailed() = true;
    std::string extra = message.str();
    std::fprintf(stderr, "%s:%d: Failure\n%s%s%s\n", file_, line_, text_.c_str(), extra.empty() ? "" : "\n",
                 extra.c_str());
  }

 private:
  const char* file_;
  int line_;
  std::string text_;
};

inline int RunAllTests() {
  int passed = 0;
  int failed = 0;
  const std::vector<TestInfo>& tests = Registry();
  for (size_t i = 0; i < tests.size(); ++i) {
    const TestInfo& info = tests[i];
    // A suite's SetUpTestCase/TearDownTestCase bracket each run of consecutive tests of that suite.
    if (i == 0 || tests[i - 1].suite != info.suite) {
      info.setUpSuite();
    }
    std::printf("[ RUN      ] %s.%s\n", info.suite.c_str(), info.name.c_str());
    std::fflush(stdout);
    CurrentTestFailed() = false;
    testing::Test* test = info.make();
    test->SetUp();
    if (!CurrentTestFailed()) {
      test->TestBody();
    }
    test->TearDown();
    delete test;
    if (CurrentTestFailed()) {
      ++failed;
      std::printf("[  FAILED  ] %s.%s\n", info.suite.c_str(), info.name.c_str());
    } else {
      ++passed;
      std::printf("[       OK ] %s.%s\n", info.suite.c_str(), info.name.c_str());
    }
    std::fflush(stdout);
    if (i + 1 == tests.size() || tests[i + 1].suite != info.suite) {
      info.tearDownSuite();
    }
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace opgen_ut

namespace testing {
inline void InitGoogleTest(int* argc, char** argv) {
  (void)argc;
  (void)argv;
}
}  // namespace testing

#define RUN_ALL_TESTS() ::opgen_ut::RunAllTests()

#define OPGEN_UT_CLASS_(suite, name) suite##_##name##_Test

// The suite hooks are reached through the test class, as fixtures usually declare them protected.
#define OPGEN_UT_DEFINE_(suite, name, base)                                                        \
  class OPGEN_UT_CLASS_(suite, name) : public base {                                               \
   public:                                                                                         \
    static void SetUpSuite() { base::SetUpTestCase(); }                                            \
    static void TearDownSuite() { base::TearDownTestCase(); }                                      \
    void TestBody() override;                                                                      \
  };                                                                                               \
  static const bool suite##_##name##_registered = ::opgen_ut::Register(                            \
      #suite, #name, [] { return static_cast<::testing::Test*>(new OPGEN_UT_CLASS_(suite, name)); }, \
      &OPGEN_UT_CLASS_(suite, name)::SetUpSuite, &OPGEN_UT_CLASS_(suite, name)::TearDownSuite);      \
  void OPGEN_UT_CLASS_(suite, name)::TestBody()

#define TEST(suite, name) OPGEN_UT_DEFINE_(suite, name, ::testing::Test)
#define TEST_F(fixture, name) OPGEN_UT_DEFINE_(fixture, name, fixture)

// `switch (0) case 0: default:` makes the check one statement that swallows a dangling `else`; a failed
// ASSERT_* returns from the test function (which must return void), as in gtest.
#define OPGEN_UT_CHECK_(result, onFailure)                                          \
  switch (0)                                                                        \
  case 0:                                                                           \
  default:                                                                          \
    if (const ::opgen_ut::CheckResult opgenUtResult = (result)) {                   \
    } else                                                                          \
      onFailure ::opgen_ut::Failure(__FILE__, __LINE__, opgenUtResult.text) = ::opgen_ut::Message()

// The operands are stringized here, before macro expansion, so messages show e.g. ACLNN_SUCCESS.
#define OPGEN_UT_COMPARE_(aText, bText, a, b, op, onFailure)                                                  \
  OPGEN_UT_CHECK_(::opgen_ut::CompareValues(#op, aText, bText, (a), (b),                                      \
                                            [](const auto& x, const auto& y) { return x op y; }),              \
                  onFailure)

#define EXPECT_TRUE(condition) OPGEN_UT_CHECK_(::opgen_ut::CheckBool(static_cast<bool>(condition), true, #condition), )
#define EXPECT_FALSE(condition) \
  OPGEN_UT_CHECK_(::opgen_ut::CheckBool(static_cast<bool>(condition), false, #condition), )
#define EXPECT_EQ(a, b) OPGEN_UT_COMPARE_(#a, #b, a, b, ==, )
#define EXPECT_NE(a, b) OPGEN_UT_COMPARE_(#a, #b, a, b, !=, )
#define EXPECT_LT(a, b) OPGEN_UT_COMPARE_(#a, #b, a, b, <, )
#define EXPECT_LE(a, b) OPGEN_UT_COMPARE_(#a, #b, a, b, <=, )
#define EXPECT_GT(a, b) OPGEN_UT_COMPARE_(#a, #b, a, b, >, )
#define EXPECT_GE(a, b) OPGEN_UT_COMPARE_(#a, #b, a, b, >=, )
#define EXPECT_NEAR(a, b, absError) OPGEN_UT_CHECK_(::opgen_ut::CheckNear((a), (b), (absError), #a, #b), )

#define ASSERT_TRUE(condition) \
  OPGEN_UT_CHECK_(::opgen_ut::CheckBool(static_cast<bool>(condition), true, #condition), return)
#define ASSERT_FALSE(condition) \
  OPGEN_UT_CHECK_(::opgen_ut::CheckBool(static_cast<bool>(condition), false, #condition), return)
#define ASSERT_EQ(a, b) OPGEN_UT_COMPARE_(#a, #b, a, b, ==, return)
#define ASSERT_NE(a, b) OPGEN_UT_COMPARE_(#a, #b, a, b, !=, return)
#define ASSERT_LT(a, b) OPGEN_UT_COMPARE_(#a, #b, a, b, <, return)
#define ASSERT_LE(a, b) OPGEN_UT_COMPARE_(#a, #b, a, b, <=, return)
#define ASSERT_GT(a, b) OPGEN_UT_COMPARE_(#a, #b, a, b, >, return)
#define ASSERT_GE(a, b) OPGEN_UT_COMPARE_(#a, #b, a, b, >=, return)
#define ASSERT_NEAR(a, b, absError) OPGEN_UT_CHECK_(::opgen_ut::CheckNear((a), (b), (absError), #a, #b), return)

#ifndef OPGEN_UT_NO_MAIN
int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
#endif

#endif  // OPGEN_TWIN_GTEST_GTEST_H_
