/** How a track's bytes are laid out: the object itself, or a segment manifest listing segment tracks. */
export enum TrackKind {
  Blob = 0,
  Manifest = 1,
}
