// SpacePalette.swift — the colours of the space picture: one per owner (tables spread around the colour wheel,
// their columns near their table's hue, indexes lighter), and fixed greys for the header, the file's structure,
// free space and preallocated space; unaccounted space is red.

import CColumnar
import Foundation

enum SpacePalette {
    static let header = "#3b3b3b"
    static let fileStructure = "#8a8a8a"
    static let free = "#d9d9d9"
    static let preallocated = "#f4f4f4"
    static let unaccounted = "#ff0000"

    /// The colour of a region.
    static func color(_ kind: SpaceMap.Kind, owner: SpaceMap.Owner?) -> String {
        switch kind {
        case .header: return header
        case .free: return free
        case .preallocated: return preallocated
        case .unaccounted: return unaccounted
        case .node: return owner.map(color(of:)) ?? fileStructure
        }
    }

    /// A saturated colour per owner, never grey (so that it never reads as free or preallocated space).
    static func color(of owner: SpaceMap.Owner) -> String {
        if owner.table == COLUMNAR_NO_TABLE { return fileStructure }
        let tableHue = (Double(owner.table) * 137.508).truncatingRemainder(dividingBy: 360)
        if owner.column == COLUMNAR_NO_COLUMN { return hsl(tableHue, 0.55, 0.32) }
        // Columns of one table stay within 120 degrees of its hue, neighbours 47 degrees apart; 47 and 120 share no
        // factor, so 120 columns get 120 different hues before one repeats.
        let hue = (tableHue + Double(owner.column * 47 % 120) + 8).truncatingRemainder(dividingBy: 360)
        let lightness = owner.inIndex ? 0.74 : 0.42 + Double(owner.column % 3) * 0.08
        return hsl(hue, 0.62, lightness)
    }

    /// "#rrggbb" of a hue (degrees), saturation and lightness (0 ... 1).
    static func hsl(_ hue: Double, _ saturation: Double, _ lightness: Double) -> String {
        let chroma = (1 - abs(2 * lightness - 1)) * saturation
        let sector = hue / 60
        let x = chroma * (1 - abs(sector.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double)
        switch Int(sector) % 6 {
        case 0: (r, g, b) = (chroma, x, 0)
        case 1: (r, g, b) = (x, chroma, 0)
        case 2: (r, g, b) = (0, chroma, x)
        case 3: (r, g, b) = (0, x, chroma)
        case 4: (r, g, b) = (x, 0, chroma)
        default: (r, g, b) = (chroma, 0, x)
        }
        let m = lightness - chroma / 2
        let bytes = [r, g, b].map { UInt8(max(0, min(255, (($0 + m) * 255).rounded()))) }
        return "#" + Format.hex(bytes)
    }
}
