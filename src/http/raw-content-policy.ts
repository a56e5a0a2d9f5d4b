/**
 * Every object is served as a sandboxed document without `allow-same-origin`: HTML, SVG or XML
 * a tenant uploaded renders in an opaque origin and runs no script at all, so it can neither
 * read nor write the gateway origin's storage and cookies (shared with every path-served site)
 * nor script another document. Applied to every type rather than to a list of "active" ones:
 * the list a browser executes is long and grows (HTML, XHTML, SVG, any XML through an XHTML
 * script element, multipart/x-mixed-replace), while passive types lose nothing (images, media,
 * text and Chromium's PDF viewer render as before). CSP is ignored on subresources, so `<img>`,
 * `<script>` and `fetch` uses are unchanged.
 */
export const OBJECT_CSP = 'sandbox';
