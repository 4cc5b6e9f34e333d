#include "engine/server/http_request_reader.h"

#include <gtest/gtest.h>

#include <string>

namespace vt::server {
namespace {

void Feed(HttpRequestReader& r, const std::string& bytes) { r.Append(bytes.data(), bytes.size()); }

TEST(HttpRequestReader, PipelinedRequestsComeOutInOrder) {
  HttpRequestReader r(1024, 1024);
  Feed(r,
       "POST /v1/completions?x=1 HTTP/1.1\r\nContent-Length: 2\r\nAuthorization: Bearer k\r\n\r\n{}"
       "GET /health HTTP/1.0\r\n\r\n");
  std::optional<ParsedRequest> a = r.Next();
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->request.method, "POST");
  EXPECT_EQ(a->request.path, "/v1/completions");
  EXPECT_EQ(a->request.body, "{}");
  EXPECT_EQ(a->request.authorization, "Bearer k");
  EXPECT_TRUE(a->keep_alive);
  std::optional<ParsedRequest> b = r.Next();
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->request.path, "/health");
  EXPECT_TRUE(b->request.http10);
  EXPECT_FALSE(b->keep_alive);  // HTTP/1.0 closes unless asked otherwise
  EXPECT_FALSE(r.Next().has_value());
  EXPECT_EQ(r.phase(), HttpRequestReader::Phase::kIdle);
}

TEST(HttpRequestReader, ARequestSplitAnywhereIsWholeOnceItsLastByteArrives) {
  const std::string bytes = "POST /tokenize HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
  HttpRequestReader r(1024, 1024);
  for (size_t i = 0; i + 1 < bytes.size(); ++i) {
    Feed(r, bytes.substr(i, 1));
    ASSERT_FALSE(r.Next().has_value()) << "whole after " << i + 1 << " bytes";
    EXPECT_NE(r.phase(), HttpRequestReader::Phase::kIdle);
  }
  Feed(r, bytes.substr(bytes.size() - 1));
  std::optional<ParsedRequest> req = r.Next();
  ASSERT_TRUE(req.has_value());
  EXPECT_EQ(req->request.body, "abc");
}

TEST(HttpRequestReader, PhasesFollowTheBytes) {
  HttpRequestReader r(1024, 1024);
  EXPECT_EQ(r.phase(), HttpRequestReader::Phase::kIdle);
  Feed(r, "POST / HTTP/1.1\r\nContent-");
  EXPECT_FALSE(r.Next().has_value());
  EXPECT_EQ(r.phase(), HttpRequestReader::Phase::kHeader);
  Feed(r, "Length: 4\r\nExpect: 100-continue\r\n\r\n");
  EXPECT_FALSE(r.Next().has_value());
  EXPECT_EQ(r.phase(), HttpRequestReader::Phase::kBody);
  EXPECT_TRUE(r.TakeContinue());
  EXPECT_FALSE(r.TakeContinue());  // once per request
  Feed(r, "body");
  EXPECT_TRUE(r.Next().has_value());
}

TEST(HttpRequestReader, ABodyOverTheLimitIsAnErrorNamingIt) {
  HttpRequestReader r(1024, 16);
  Feed(r, "POST / HTTP/1.1\r\nContent-Length: 17\r\n\r\n");
  EXPECT_FALSE(r.Next().has_value());
  ASSERT_TRUE(r.error().has_value());
  EXPECT_EQ(r.error()->status, 400);
  EXPECT_NE(r.error()->message.find("16 bytes"), std::string::npos) << r.error()->message;
}

TEST(HttpRequestReader, AChunkedBodyOverTheLimitIsAnError) {
  HttpRequestReader r(1024, 16);
  Feed(r, "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n0123456789abcdef\r\n1\r\nx\r\n0\r\n\r\n");
  EXPECT_FALSE(r.Next().has_value());
  ASSERT_TRUE(r.error().has_value());
  EXPECT_EQ(r.error()->status, 400);
}

TEST(HttpRequestReader, AHeaderOverTheLimitIs431) {
  HttpRequestReader r(64, 1024);
  Feed(r, "GET / HTTP/1.1\r\nX: " + std::string(100, 'a') + "\r\n\r\n");
  EXPECT_FALSE(r.Next().has_value());
  ASSERT_TRUE(r.error().has_value());
  EXPECT_EQ(r.error()->status, 431);
  EXPECT_NE(r.error()->message.find("64 bytes"), std::string::npos) << r.error()->message;
}

TEST(HttpRequestReader, GarbageIsA400AndNothingParsesAfterIt) {
  HttpRequestReader r(1024, 1024);
  Feed(r, "HELLO THERE\r\n\r\nGET /health HTTP/1.1\r\n\r\n");
  EXPECT_FALSE(r.Next().has_value());
  ASSERT_TRUE(r.error().has_value());
  EXPECT_EQ(r.error()->status, 400);
  EXPECT_FALSE(r.Next().has_value());
}

}  // namespace
}  // namespace vt::server
