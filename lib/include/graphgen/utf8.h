// UTF-8 as every output needs it: names come from untrusted profiles, and
// one byte that is not UTF-8 makes an SVG unreadable, a control character
// breaks a line of text. The outputs' own escaping (formats/common/markup.h,
// dot IDs, the renderer's graph name) starts from these.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace graphgen {

/// U+FFFD, what stands for a byte or character an output cannot hold.
inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

/// Length of the valid UTF-8 sequence at s[i], or 0 (RFC 3629: no overlong
/// forms, no surrogates, nothing above U+10FFFF).
std::size_t utf8_length(std::string_view s, std::size_t i);

/// DEL or a C1 control (U+0080-U+009F) as one valid UTF-8 piece: valid
/// UTF-8, but HTML5 parsers report them as invalid code points.
bool is_del_or_c1(std::string_view piece);

/// The text as valid UTF-8: each byte of an invalid sequence becomes U+FFFD.
std::string valid_utf8(std::string_view s);

/// Valid UTF-8 whose control characters (but tab and newline), DEL and C1
/// controls are U+FFFD as well: text any output can show.
std::string printable_utf8(std::string_view s);

/// A name as a line of text shows it, the rule of every text output: each
/// C0 control and DEL becomes a visible escape (`\x1b`, `\x00`, `\x0a`),
/// each C1 control one too (`\u0085`), each byte of an invalid sequence
/// U+FFFD; everything else (backslashes included) is unchanged, so common
/// names print as they are.
std::string visible_text(std::string_view s);
void append_visible(std::string& out, std::string_view s);

}  // namespace graphgen
