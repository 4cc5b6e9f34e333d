// The safetensors format: an 8-byte little-endian header length, a JSON header
// of {name: {dtype, shape, data_offsets}}, then the data. The file is
// untrusted: every field is checked against the file's size before any tensor
// byte is touched, and a bad field is an error naming the tensor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"
#include "engine/loader/tensor_store.h"

namespace vt {

// Parses and validates the header of `size` bytes at `data`, adding a view of
// every tensor to `store`. `label` names the file in errors.
Status ParseSafetensors(const uint8_t* data, size_t size, const std::string& label, TensorStore* store);

// Maps `path` and adds its tensors to `store` (which keeps the mapping alive).
Status AddSafetensorsFile(const std::string& path, TensorStore* store);

}  // namespace vt
