import Foundation

/// The conformance table of Apple's system-declared uniform type
/// identifiers, which `UTI-CONFORMS-TO` and `UTI-EQUALS` read.
///
/// ```swift
/// UniformTypes.conforms("public.jpeg", to: "public.image")   // true
/// UniformTypes.conforms("public.jpeg", to: "public.text")    // false
/// ```
///
/// Linux has no Launch Services to ask, so this table is all mrq knows:
/// the `public.*` types of Apple's UTType reference (System-Declared
/// Uniform Type Identifiers), plus the few others Apple's documentation
/// lists (`com.adobe.pdf`, `com.compuserve.gif`…), each with the types it
/// conforms to directly. Conformance is reflexive and transitive, and a
/// UTI the table does not know conforms only to itself. Identifiers are
/// compared exactly as written (Apple's are lower case).
public enum UniformTypes {
    /// Each known type and the types it conforms to directly.
    public static let parents: [String: [String]] = [
        "public.item": [],
        "public.content": [],
        "public.composite-content": ["public.content"],
        "public.data": ["public.item"],
        "public.directory": ["public.item"],
        "public.folder": ["public.directory"],
        "public.volume": ["public.folder"],
        "public.package": ["public.directory"],
        "public.symlink": ["public.item"],
        "public.executable": ["public.item"],
        "public.database": ["public.item"],
        "public.message": ["public.item"],
        "public.contact": ["public.item"],
        "public.url": ["public.data"],
        "public.file-url": ["public.url"],
        "public.text": ["public.data", "public.content"],
        "public.plain-text": ["public.text"],
        "public.utf8-plain-text": ["public.plain-text"],
        "public.utf16-plain-text": ["public.plain-text"],
        "public.utf16-external-plain-text": ["public.plain-text"],
        "public.utf8-tab-separated-values-text": ["public.tab-separated-values-text"],
        "public.delimited-values-text": ["public.text"],
        "public.comma-separated-values-text": ["public.delimited-values-text"],
        "public.tab-separated-values-text": ["public.delimited-values-text"],
        "public.rtf": ["public.text"],
        "public.html": ["public.text"],
        "public.xml": ["public.text"],
        "public.xhtml": ["public.xml"],
        "public.json": ["public.text"],
        "public.yaml": ["public.text"],
        "public.vcard": ["public.text", "public.contact"],
        "public.source-code": ["public.plain-text"],
        "public.assembly-source": ["public.source-code"],
        "public.c-source": ["public.source-code"],
        "public.objective-c-source": ["public.source-code"],
        "public.swift-source": ["public.source-code"],
        "public.c-plus-plus-source": ["public.source-code"],
        "public.objective-c-plus-plus-source": ["public.source-code"],
        "public.c-header": ["public.source-code"],
        "public.c-plus-plus-header": ["public.source-code"],
        "public.script": ["public.source-code"],
        "public.shell-script": ["public.script"],
        "public.python-script": ["public.script"],
        "public.ruby-script": ["public.script"],
        "public.perl-script": ["public.script"],
        "public.php-script": ["public.script"],
        "com.netscape.javascript-source": ["public.source-code", "public.script"],
        "net.daringfireball.markdown": ["public.plain-text"],
        "public.image": ["public.data", "public.content"],
        "public.jpeg": ["public.image"],
        "public.png": ["public.image"],
        "public.tiff": ["public.image"],
        "public.heif-standard": ["public.image"],
        "public.heic": ["public.heif-standard"],
        "public.heif": ["public.heif-standard"],
        "public.svg-image": ["public.image"],
        "public.camera-raw-image": ["public.image"],
        "com.compuserve.gif": ["public.image"],
        "com.microsoft.bmp": ["public.image"],
        "com.microsoft.ico": ["public.image"],
        "com.apple.icns": ["public.image"],
        "org.webmproject.webp": ["public.image"],
        "public.audiovisual-content": ["public.data", "public.content"],
        "public.movie": ["public.audiovisual-content"],
        "public.video": ["public.movie"],
        "public.audio": ["public.audiovisual-content"],
        "public.mpeg": ["public.movie"],
        "public.mpeg-4": ["public.movie"],
        "public.mpeg-2-video": ["public.video"],
        "public.avi": ["public.movie"],
        "com.apple.quicktime-movie": ["public.movie"],
        "public.mp3": ["public.audio"],
        "public.mpeg-4-audio": ["public.mpeg-4", "public.audio"],
        "public.aiff-audio": ["public.audio"],
        "com.microsoft.waveform-audio": ["public.audio"],
        "public.midi-audio": ["public.audio"],
        "com.adobe.pdf": ["public.data", "public.composite-content"],
        "public.presentation": ["public.composite-content"],
        "public.spreadsheet": ["public.content"],
        "public.archive": ["public.data"],
        "public.zip-archive": ["public.archive"],
        "org.gnu.gnu-zip-archive": ["public.archive"],
        "public.bzip2-archive": ["public.archive"],
        "public.tar-archive": ["public.archive"],
        "public.disk-image": ["public.archive"],
        "public.font": ["public.data", "public.content"],
        "public.truetype-ttf-font": ["public.font"],
        "public.opentype-font": ["public.font"],
        "public.log": ["public.plain-text"],
        "public.calendar-event": ["public.item"],
        "public.email-message": ["public.message"],
    ]

    /// True when `type` conforms to `other`: it is `other`, or one of the
    /// types it conforms to does, as `UTTypeConformsTo` answers.
    public static func conforms(_ type: String, to other: String) -> Bool {
        if type.utf8.elementsEqual(other.utf8) { return true }
        guard isPlain(type), isPlain(other) else { return false }
        var seen: Set<String> = []
        var pending = [type]
        while let next = pending.popLast() {
            for parent in parents[next] ?? [] where seen.insert(parent).inserted {
                if parent == other { return true }
                pending.append(parent)
            }
        }
        return false
    }

    /// Every identifier that conforms to `type`: itself and the known types
    /// below it, sorted; the IN-list SQL compares a column with.
    public static func conforming(to type: String) -> [String] {
        var result = [type]
        if isPlain(type) {
            result += parents.keys.filter { $0 != type && conforms($0, to: type) }
        }
        return result.sorted()
    }

    /// Only ASCII identifiers are looked up: a String key compares by
    /// canonical equivalence, the SQL by bytes.
    static func isPlain(_ s: String) -> Bool { s.utf8.allSatisfy { $0 < 0x80 } }
}
