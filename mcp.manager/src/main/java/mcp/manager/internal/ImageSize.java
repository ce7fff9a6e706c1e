package mcp.manager.internal;

import java.util.Base64;
import java.util.Locale;
import java.util.Optional;

/**
 * An image's pixel size, read from the header of its bytes only (never a full decode), and an estimate of what the
 * image costs a model's context (see {@code docs/context-budget.md}). PNG (its {@code IHDR}), JPEG (the first frame
 * header, {@code SOF}, found by a scan of at most {@link #MAX_HEADER_BYTES}), GIF (the logical screen) and WebP
 * ({@code VP8}, {@code VP8L}, {@code VP8X}) are read; any other or a damaged header gives no size, never an exception.
 *
 * @param width the width in pixels, positive
 * @param height the height in pixels, positive
 */
record ImageSize(int width, int height) {

    /** The most bytes read from the start of an image: JPEG metadata (Exif, ICC) may come before the frame header. */
    static final int MAX_HEADER_BYTES = 256 * 1024;
    /** Anthropic's vision docs: a longer edge is scaled down to this first. */
    static final int MAX_LONG_EDGE = 1568;
    /** Anthropic's vision docs: an image of more (about 1.15 megapixels) is scaled down to about this many. */
    static final int MAX_TOKENS = 1_600;
    /** Anthropic's vision docs: tokens are about width times height divided by this. */
    static final int PIXELS_PER_TOKEN = 750;

    /** The bytes that decide the format and hold the size of every format but JPEG. */
    private static final int SHORT_HEADER_BYTES = 32;

    /** Validates. */
    public ImageSize {
        if (width <= 0 || height <= 0) {
            throw new IllegalArgumentException("an image size is positive, got " + width + "x" + height);
        }
    }

    /**
     * @param base64 an image's data as in an MCP image item (base64; line breaks are skipped)
     * @return its size, if its header is one of the formats read and whole; decodes only the beginning
     */
    public static Optional<ImageSize> ofBase64(String base64) {
        byte[] head = decodePrefix(base64, SHORT_HEADER_BYTES);
        if (isJpeg(head)) {
            head = decodePrefix(base64, MAX_HEADER_BYTES);
        }
        return read(head);
    }

    /**
     * @param bytes the beginning of an image's bytes (the whole image or at least its header)
     * @return its size, if the header is one of the formats read and whole
     */
    static Optional<ImageSize> read(byte[] bytes) {
        if (isPng(bytes)) {
            return png(bytes);
        } else if (isJpeg(bytes)) {
            return jpeg(bytes);
        } else if (startsWith(bytes, 0, "GIF87a") || startsWith(bytes, 0, "GIF89a")) {
            return bytes.length < 10 ? Optional.empty() : of(u16le(bytes, 6), u16le(bytes, 8));
        } else if (startsWith(bytes, 0, "RIFF") && startsWith(bytes, 8, "WEBP")) {
            return webp(bytes);
        }
        return Optional.empty();
    }

    /**
     * The estimate of Anthropic's vision docs: an image whose long edge is over {@value #MAX_LONG_EDGE} pixels is
     * first scaled down to it, keeping its aspect ratio; then about {@code width * height / 750} tokens (rounded up),
     * at most about {@value #MAX_TOKENS} (larger images are scaled down to that too). Other models count differently:
     * an estimate.
     *
     * @return the estimated tokens, at least 1
     */
    public int tokens() {
        double scale = Math.min(1.0, (double) MAX_LONG_EDGE / Math.max(width, height));
        double pixels = Math.max(1, Math.round(width * scale)) * (double) Math.max(1, Math.round(height * scale));
        // Rounded up, as the docs' table is (200x200 px: ~54 tokens; 1000x1000 px: ~1334).
        return (int) Math.max(1, Math.min(MAX_TOKENS, Math.ceil(pixels / PIXELS_PER_TOKEN)));
    }

    /** @return {@code <width>x<height>, about <n> tokens}, as the image's marker shows it */
    public String describe() {
        int tokens = tokens();
        return width + "x" + height + ", about " + String.format(Locale.ROOT, "%,d", tokens)
                + (tokens == 1 ? " token" : " tokens");
    }

    private static Optional<ImageSize> of(long width, long height) {
        return width <= 0 || height <= 0 || width > Integer.MAX_VALUE || height > Integer.MAX_VALUE ? Optional.empty()
                : Optional.of(new ImageSize((int) width, (int) height));
    }

    // ---- the formats ----

    private static boolean isPng(byte[] b) {
        return b.length >= 8 && u8(b, 0) == 0x89 && startsWith(b, 1, "PNG\r\n\u001a\n");
    }

    /** The first chunk is {@code IHDR} (13 bytes): width and height, 4 bytes each, big-endian. */
    private static Optional<ImageSize> png(byte[] b) {
        if (b.length < 24 || u32be(b, 8) != 13 || !startsWith(b, 12, "IHDR")) {
            return Optional.empty();
        }
        return of(u32be(b, 16), u32be(b, 20));
    }

    private static boolean isJpeg(byte[] b) {
        return b.length >= 3 && u8(b, 0) == 0xFF && u8(b, 1) == 0xD8 && u8(b, 2) == 0xFF;
    }

    /**
     * Walks the segments from the start of the image to the first frame header ({@code SOF0} to {@code SOF15} but
     * {@code DHT}, {@code JPG} and {@code DAC}, which share the range): its height and width follow the precision.
     * Every step moves forward and stays within the bytes given, so the walk ends.
     */
    private static Optional<ImageSize> jpeg(byte[] b) {
        int i = 2;
        while (i + 1 < b.length) {
            if (u8(b, i) != 0xFF) {
                return Optional.empty(); // not at a marker: damaged
            }
            int marker = u8(b, i + 1);
            if (marker == 0xFF) {
                i++; // a fill byte before the marker
                continue;
            }
            i += 2;
            if (marker == 0x01 || marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7)) {
                continue; // markers without a segment
            }
            if (marker == 0xD9 || marker == 0xDA || i + 2 > b.length) {
                return Optional.empty(); // the end, or scan data, before any frame header; or cut short
            }
            int length = u16be(b, i);
            if (length < 2) {
                return Optional.empty();
            }
            if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
                // length, precision (1 byte), height, width; a height of 0 (set later by DNL) gives no size
                return i + 7 > b.length ? Optional.empty() : of(u16be(b, i + 5), u16be(b, i + 3));
            }
            i += length;
        }
        return Optional.empty();
    }

    /** {@code RIFF <size> WEBP}, then the first chunk: {@code VP8 } (lossy), {@code VP8L} (lossless) or {@code VP8X}. */
    private static Optional<ImageSize> webp(byte[] b) {
        if (startsWith(b, 12, "VP8 ")) {
            // The frame tag (3 bytes), the start code 9D 01 2A, then 14-bit width and height (2 scale bits each).
            if (b.length < 30 || u8(b, 23) != 0x9D || u8(b, 24) != 0x01 || u8(b, 25) != 0x2A) {
                return Optional.empty();
            }
            return of(u16le(b, 26) & 0x3FFF, u16le(b, 28) & 0x3FFF);
        } else if (startsWith(b, 12, "VP8L")) {
            // The signature 0x2F, then width - 1 and height - 1 in 14 bits each, least significant bits first.
            if (b.length < 25 || u8(b, 20) != 0x2F) {
                return Optional.empty();
            }
            long bits = u32le(b, 21);
            return of((bits & 0x3FFF) + 1, ((bits >>> 14) & 0x3FFF) + 1);
        } else if (startsWith(b, 12, "VP8X")) {
            // Flags (1 byte), reserved (3), then the canvas's width - 1 and height - 1 in 3 bytes each.
            return b.length < 30 ? Optional.empty() : of(u24le(b, 24) + 1L, u24le(b, 27) + 1L);
        }
        return Optional.empty();
    }

    // ---- bytes ----

    /**
     * The first bytes of base64 data, at most about {@code bytes}: only the characters of the base64 alphabet count
     * (line breaks are skipped), up to the padding. Data that is no base64 gives no bytes.
     */
    static byte[] decodePrefix(String base64, int bytes) {
        int wanted = (bytes + 2) / 3 * 4;
        StringBuilder chars = new StringBuilder(Math.min(wanted, base64.length()));
        for (int i = 0; i < base64.length() && chars.length() < wanted; i++) {
            char c = base64.charAt(i);
            if (c == '=') {
                break;
            } else if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+'
                    || c == '/') {
                chars.append(c);
            } else if (c != '\r' && c != '\n' && c != ' ' && c != '\t') {
                return new byte[0];
            }
        }
        if (chars.length() % 4 == 1) {
            chars.setLength(chars.length() - 1); // a lone last character holds no whole byte
        }
        return Base64.getDecoder().decode(chars.toString());
    }

    private static boolean startsWith(byte[] b, int offset, String ascii) {
        if (b.length < offset + ascii.length()) {
            return false;
        }
        for (int i = 0; i < ascii.length(); i++) {
            if (b[offset + i] != (byte) ascii.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static int u8(byte[] b, int i) {
        return b[i] & 0xFF;
    }

    private static int u16be(byte[] b, int i) {
        return u8(b, i) << 8 | u8(b, i + 1);
    }

    private static int u16le(byte[] b, int i) {
        return u8(b, i) | u8(b, i + 1) << 8;
    }

    private static int u24le(byte[] b, int i) {
        return u16le(b, i) | u8(b, i + 2) << 16;
    }

    private static long u32be(byte[] b, int i) {
        return (long) u16be(b, i) << 16 | u16be(b, i + 2);
    }

    private static long u32le(byte[] b, int i) {
        return u16le(b, i) | (long) u16le(b, i + 2) << 16;
    }
}
