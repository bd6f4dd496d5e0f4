// NaN and infinities in FlashInfer-Trace files.
//
// JSON has no token for them. flashinfer-bench writes a correctness error that is NaN or
// infinite as the strings "NaN", "Infinity" and "-Infinity" (pydantic's
// ser_json_inf_nan="strings"), and Python's json module writes the bare tokens NaN,
// Infinity and -Infinity, which pydantic also reads. kharness reads both, and writes the
// strings, the form flashinfer-bench itself loads back.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace kh {

// The value of "NaN", "Infinity", "-Infinity" (and "nan", "inf", "+inf", "-inf", any case,
// as Python's float() reads them); nullopt for any other text.
[[nodiscard]] std::optional<double> non_finite_from_text(std::string_view text) noexcept;

// `value` as JSON: a number when finite, else "NaN", "Infinity" or "-Infinity".
[[nodiscard]] nlohmann::ordered_json number_json(double value);

// `text` with every bare NaN, Infinity and -Infinity token outside strings replaced by the
// quoted string, so that a strict JSON parser reads it. Text without such tokens comes
// back unchanged.
[[nodiscard]] std::string quote_non_finite_tokens(std::string_view text);

}  // namespace kh
