// StringFolding and Wildcard: the `[c]` / `[d]` modifiers and LIKE patterns, over UTF-8 bytes.
//
// `[c]` folds letter case with Unicode's full lowercase mapping (so "ÄRGER" matches "ärger", not only ASCII);
// `[d]` removes diacritics by decomposing each character (canonical decomposition, NFD) and dropping the combining
// marks, so "é" matches "e". The C kernels fold ASCII themselves and hand rows with other bytes to this file, so the
// two never disagree: for ASCII text both foldings are the same.

import Foundation

enum StringFolding {
    static func fold(_ bytes: [UInt8], _ options: ComparisonOptions) -> [UInt8] {
        if options.isEmpty { return bytes }
        if bytes.allSatisfy({ $0 < 0x80 }) {
            // ASCII has no diacritics; only case can change.
            guard options.contains(.caseInsensitive) else { return bytes }
            return bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        }
        var text = String(decoding: bytes, as: UTF8.self)
        if options.contains(.diacriticInsensitive) {
            var scalars = String.UnicodeScalarView()
            for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars
            where !isCombiningMark(scalar) {
                scalars.append(scalar)
            }
            text = String(scalars)
        }
        if options.contains(.caseInsensitive) {
            text = text.lowercased()
        }
        return Array(text.utf8)
    }

    private static func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .spacingMark: return true
        default: return false
        }
    }
}

/// LIKE: `?` matches exactly one character (Unicode scalar), `*` any run of characters, everything else itself;
/// the pattern must match the whole string.
enum Wildcard {
    static func matches(_ text: [UInt8], pattern: [UInt8]) -> Bool {
        let text = Array(String(decoding: text, as: UTF8.self).unicodeScalars)
        let pattern = Array(String(decoding: pattern, as: UTF8.self).unicodeScalars)
        var textIndex = 0, patternIndex = 0
        var starPattern = -1, starText = 0
        while textIndex < text.count {
            // `*` is tested first: in the pattern it is always a wildcard, even where the text holds a `*` too.
            if patternIndex < pattern.count && pattern[patternIndex] == "*" {
                starPattern = patternIndex
                starText = textIndex
                patternIndex += 1
            } else if patternIndex < pattern.count
                        && (pattern[patternIndex] == "?" || pattern[patternIndex] == text[textIndex]) {
                textIndex += 1
                patternIndex += 1
            } else if starPattern >= 0 {
                // Let the last `*` swallow one more character and retry from there.
                patternIndex = starPattern + 1
                starText += 1
                textIndex = starText
            } else {
                return false
            }
        }
        while patternIndex < pattern.count && pattern[patternIndex] == "*" { patternIndex += 1 }
        return patternIndex == pattern.count
    }
}
