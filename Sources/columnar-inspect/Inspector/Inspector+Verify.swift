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

    /// What is wrong with the header (the first 8192 bytes), as findings: the reason the engine would refuse the
    /// file, a reserved byte that is not zero, a written slot that fails its checksum or is not usable, and a
    /// slot above the current version whose version is not whole (a commit that did not reach the disk whole: a
    /// crash or a failed sync cut it short, and the next writer's repair removes it). An empty slot is normal, and
    /// so is an older version that is no longer whole (later commits may reuse the space it freed). Without the key
    /// of an encrypted file whether a version is whole cannot be told, and is not reported.
    func headerFindings() -> [Finding] {
        let header = self.header
        var findings: [Finding] = []
        if let status { findings.append(Finding(offset: status.offset, what: status.message)) }
        guard header.header_bytes_present >= Inspector.sectorBytes else { return findings }
        if header.reserved_nonzero_at != 0 {
            findings.append(Finding(offset: UInt64(header.reserved_nonzero_at), what: "reserved header byte at "
                                    + "\(header.reserved_nonzero_at) is not zero (the engine writes zeros there)"))
        }
        let slots = self.slots
        let current = header.current_slot >= 0 ? slots[Int(header.current_slot)] : nil
        let opens = current.map { "; the engine opens version \($0.version) (slot \(header.current_slot))" } ?? ""
        for (index, slot) in slots.enumerated() where !slot.is_zero {
            let problem = fixedString(slot.problem)
            if !slot.checksum_valid {
                findings.append(Finding(offset: slot.offset, what: "header slot \(index) (offset \(slot.offset)) "
                    + "fails its checksum (stored \(hex32(slot.stored_checksum)), computed "
                    + "\(hex32(slot.computed_checksum))): damage, or a slot write the disk did not finish" + opens))
            } else if !slot.usable {
                findings.append(Finding(offset: slot.offset, what: "header slot \(index) (offset \(slot.offset), "
                    + "version \(slot.version)) is not usable: it \(problem)" + opens))
            } else if !slot.whole && slot.version > current?.version ?? 0 && !isEncryptedWithoutKey {
                findings.append(Finding(offset: slot.offset, what: "header slot \(index) (offset \(slot.offset)) "
                    + "holds version \(slot.version), which is not whole (a commit cut short by a crash or a failed "
                    + "sync; the next writer's repair removes it): \(problem)" + opens))
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
