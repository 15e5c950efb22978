// What a program gets from `import PasteboardKit` besides the `Pasteboard` class.
//
// Like Apple's `UniformTypeIdentifiers`, whose header brings Foundation along, importing the kit makes
// Foundation's `URL`, `Data` and `FileManager` visible: code written for Apple's frameworks uses them
// with no import of its own, and compiles here with `import PasteboardKit` in place of Apple's imports.
@_exported public import Foundation
