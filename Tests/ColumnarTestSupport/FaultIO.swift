// FaultIO.swift — the engine's fault-injecting I/O layer (columnar_faultio) as a Swift object: a model of the page
// cache and a disk behind it, shared through files beside the data file by every process that writes it.
//
// Pass `io` in the open options; the layer forwards writes to the real file (the cache) and keeps the disk in its
// model. Close every database that uses it (and stop every process writing the file) before applying a power cut.

import CColumnar
import Foundation

public final class FaultIO {
    public let handle: OpaquePointer

    /// columnar_faultio_create; `seed` drives the layer's own random choices (which pages a failed sync wrote,
    /// torn sectors, RANDOM power cuts).
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

    /// columnar_faultio_fail_writes_after (`writeCount` 0: the next write fails; `error` 0 turns it off).
    public func failWrites(after writeCount: UInt64, error: Int32) {
        columnar_faultio_fail_writes_after(handle, writeCount, error)
    }

    /// columnar_faultio_power_cut_after.
    public func cutPower(after writeCount: UInt64) { columnar_faultio_power_cut_after(handle, writeCount) }

    /// columnar_faultio_at_step with kill false: the power goes at the `occurrence`-th time the engine reaches
    /// `step`.
    public func cutPower(at step: columnar_step, occurrence: UInt64 = 1) {
        columnar_faultio_at_step(handle, step, occurrence, false)
    }

    /// columnar_faultio_at_step with kill true: this process dies (SIGKILL) there. For worker processes.
    public func kill(at step: columnar_step, occurrence: UInt64 = 1) {
        columnar_faultio_at_step(handle, step, occurrence, true)
    }

    /// columnar_faultio_kill_after_writes. For worker processes.
    public func kill(afterWrites writeCount: UInt64) { columnar_faultio_kill_after_writes(handle, writeCount) }

    /// columnar_faultio_fail_sync: the sync after `syncsBefore` more fails as Linux fails one.
    public func failSync(after syncsBefore: UInt64 = 0, error: Int32 = -EIO) {
        columnar_faultio_fail_sync(handle, syncsBefore, error)
    }

    /// columnar_faultio_writeback: background writeback of a share of the dirty pages of the file at `path`.
    public func writeBack(_ path: String, share: Double) throws {
        try check(columnar_faultio_writeback(handle, path, share), "columnar_faultio_writeback")
    }

    /// columnar_faultio_evict_failed: pages whose writeback failed are read back from the disk.
    public func evictFailedPages(_ path: String) throws {
        try check(columnar_faultio_evict_failed(handle, path), "columnar_faultio_evict_failed")
    }

    /// columnar_faultio_apply_power_cut, once every handle of the database at `path` is closed.
    public func applyPowerCut(to path: String, mode: columnar_power_cut_mode) throws {
        try check(columnar_faultio_apply_power_cut(handle, path, mode), "columnar_faultio_apply_power_cut")
    }

    /// columnar_faultio_forget: removes the model's files of the file at `path`.
    public static func forget(_ path: String) { _ = columnar_faultio_forget(path) }
}
