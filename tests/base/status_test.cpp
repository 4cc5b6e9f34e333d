#include "base/status.h"

#include <gtest/gtest.h>

#include <string>

namespace vt {
namespace {

Status FailsWith(StatusCode code) { return {code, "boom"}; }

Status Propagates(StatusCode code) {
  VT_RETURN_IF_ERROR(FailsWith(code));
  return InvalidArgument("not reached when the inner call fails");
}

TEST(Status, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
}

TEST(Status, ReturnIfErrorPropagatesTheInnerStatus) {
  Status s = Propagates(StatusCode::kDataLoss);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.message(), "boom");
  EXPECT_EQ(Propagates(StatusCode::kOk).code(), StatusCode::kInvalidArgument);
}

TEST(Result, HoldsValueOrStatus) {
  Result<std::string> good(std::string("weights"));
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, "weights");
  EXPECT_TRUE(good.status().ok());

  Result<std::string> bad(NotFound("config.json"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(bad.status().message(), "config.json");
}

}  // namespace
}  // namespace vt
