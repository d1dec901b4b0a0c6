// FaultIO.swift — the engine's fault-injecting I/O layer (columnar_faultio) as a Swift object.
//
// Pass `io` in the open options; the layer forwards to the real I/O until told to fail writes or to cut the
// power. Close every database that uses it before the FaultIO goes away.

import CColumnar

public final class FaultIO {
    public let handle: OpaquePointer

    /// columnar_faultio_create; `seed` drives the layer's own random choices (torn writes in RANDOM mode).
    public init(seed: UInt64) {
        guard let handle = columnar_faultio_create(seed) else { preconditionFailure("columnar_faultio_create failed") }
        self.handle = handle
    }

    deinit { columnar_faultio_destroy(handle) }

    /// columnar_faultio_io: the table for columnar_open_options.io.
    public var io: UnsafePointer<columnar_io> { columnar_faultio_io(handle) }

    /// columnar_faultio_write_count.
    public var writeCount: UInt64 { columnar_faultio_write_count(handle) }

    /// columnar_faultio_sync_count.
    public var syncCount: UInt64 { columnar_faultio_sync_count(handle) }

    /// columnar_faultio_fail_writes_after (`writeCount` 0 turns it off).
    public func failWrites(after writeCount: UInt64, error: Int32) {
        columnar_faultio_fail_writes_after(handle, writeCount, error)
    }

    /// columnar_faultio_power_cut_after.
    public func cutPower(after writeCount: UInt64) { columnar_faultio_power_cut_after(handle, writeCount) }

    /// columnar_faultio_apply_power_cut, once the database at `path` is closed.
    public func applyPowerCut(to path: String, mode: columnar_power_cut_mode) throws {
        try check(columnar_faultio_apply_power_cut(handle, path, mode), "columnar_faultio_apply_power_cut")
    }
}
