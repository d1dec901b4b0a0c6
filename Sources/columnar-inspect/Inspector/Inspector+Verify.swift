// Inspector+Verify.swift — the integrity walk of the inspected version (columnar_inspect_verify, which runs
// columnar_verify on the inspector's own mapping), and the header checks the walk leaves to its caller.

import CColumnar

extension Inspector {
    /// Runs the engine's integrity walk on the inspected version. Throws when no version can be inspected.
    func verifyVersion() throws -> [Finding] {
        final class Findings { var items: [Finding] = [] }
        let findings = Findings()
        var count: UInt64 = 0
        let code = columnar_inspect_verify(handle, { context, ref, what in
            Unmanaged<Findings>.fromOpaque(context!).takeUnretainedValue().items.append(
                Finding(offset: ref, what: what.map { String(cString: $0) } ?? ""))
        }, Unmanaged.passUnretained(findings).toOpaque(), &count)
        if code != COLUMNAR_OK && code != COLUMNAR_ECORRUPT { throw EngineFailure(code: code) }
        // Every finding is reported through the callback; the count is a cross-check.
        if UInt64(findings.items.count) != count {
            findings.items.append(Finding(offset: 0, what: "the integrity walk counted \(count) findings but "
                                          + "reported \(findings.items.count)"))
        }
        return findings.items
    }

    /// What is wrong with the header (the first 4096 bytes), as findings: the reason the engine would refuse the
    /// file, reserved bytes that are not zero, a selector that is not 0 or 1 or that picks the older version, and
    /// a written slot that fails its checksum. A slot that was never written (all zero) is not a finding.
    func headerFindings() -> [Finding] {
        let header = self.header
        var findings: [Finding] = []
        if let status { findings.append(Finding(offset: status.offset, what: status.message)) }
        guard header.header_bytes_present >= 128 else { return findings }
        if header.reserved_nonzero_at != 0 {
            findings.append(Finding(offset: UInt64(header.reserved_nonzero_at), what: "reserved header byte at "
                                    + "\(header.reserved_nonzero_at) is not zero (the engine writes zeros there)"))
        }
        if header.selector > 1 {
            findings.append(Finding(offset: 16, what: "the slot selector at offset 16 is \(header.selector), neither "
                                    + "0 nor 1; the engine falls back to the usable slot with the higher version"))
        }
        let slots = [header.slots.0, header.slots.1]
        for (index, slot) in slots.enumerated() where !slot.is_zero && !slot.checksum_valid {
            findings.append(Finding(offset: UInt64(32 + 48 * index), what: "header slot \(index) (offset "
                + "\(32 + 48 * index)) fails its checksum (stored \(hex32(slot.stored_checksum)), computed "
                + "\(hex32(slot.computed_checksum))): a torn header write or damage"))
        }
        let current = Int(header.current_slot)
        if current >= 0 {
            if header.selector <= 1 && Int(header.selector) != current {
                findings.append(Finding(offset: 16, what: "the selector picks slot \(header.selector), which is not "
                    + "usable; the engine opens slot \(current) (version \(slots[current].version))"))
            }
            let other = slots[1 - current]
            if other.usable && other.version > slots[current].version {
                findings.append(Finding(offset: 16, what: "the selector picks slot \(current) (version "
                    + "\(slots[current].version)) although slot \(1 - current) holds the later version "
                    + "\(other.version); a commit always selects the slot it wrote"))
            }
        }
        return findings
    }
}

/// An 8-digit hexadecimal checksum.
func hex32(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, 8 - digits.count)) + digits
}
