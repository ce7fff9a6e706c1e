package mcp.manager.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.Random;
import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.stream.MemoryCacheImageOutputStream;
import org.junit.jupiter.api.Test;

/**
 * The image header reader against real images made here with {@code javax.imageio} (PNG, JPEG baseline and
 * progressive, GIF) and hand-built WebP headers (the JDK writes no WebP), and against cut and damaged bytes: no size,
 * never an exception.
 */
class ImageSizeTest {

    private static byte[] image(String format, int width, int height) throws IOException {
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        for (int x = 0; x < width; x++) {
            image.setRGB(x, x * height / width, 0xFF8800);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertTrue(ImageIO.write(image, format, out), "the JDK writes " + format);
        return out.toByteArray();
    }

    private static byte[] progressiveJpeg(int width, int height) throws IOException {
        ImageWriter writer = ImageIO.getImageWritersByFormatName("jpeg").next();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (MemoryCacheImageOutputStream stream = new MemoryCacheImageOutputStream(out)) {
            writer.setOutput(stream);
            ImageWriteParam param = writer.getDefaultWriteParam();
            param.setProgressiveMode(ImageWriteParam.MODE_DEFAULT);
            writer.write(null, new IIOImage(new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB), null, null),
                    param);
        } finally {
            writer.dispose();
        }
        byte[] jpeg = out.toByteArray();
        assertEquals(Optional.of(0xC2), firstFrameMarker(jpeg), "a progressive frame header (SOF2)");
        return jpeg;
    }

    /** The marker of the first frame header, found the slow way: to check the fixture, not the reader. */
    private static Optional<Integer> firstFrameMarker(byte[] jpeg) {
        for (int i = 0; i + 1 < jpeg.length; i++) {
            int marker = jpeg[i + 1] & 0xFF;
            if ((jpeg[i] & 0xFF) == 0xFF && marker >= 0xC0 && marker <= 0xC3) {
                return Optional.of(marker);
            }
        }
        return Optional.empty();
    }

    /** A JPEG with an application segment of {@code length} bytes between its start and the rest, as Exif is. */
    private static byte[] withAppSegment(byte[] jpeg, int count, int length) {
        ByteBuffer out = ByteBuffer.allocate(jpeg.length + count * (length + 2));
        out.put(jpeg, 0, 2);
        for (int n = 0; n < count; n++) {
            out.put((byte) 0xFF).put((byte) 0xE1).putShort((short) length).put(new byte[length - 2]);
        }
        out.put(jpeg, 2, jpeg.length - 2);
        return out.array();
    }

    private static byte[] riff(String chunk, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(20 + payload.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put("RIFF".getBytes(StandardCharsets.US_ASCII)).putInt(12 + payload.length)
                .put("WEBP".getBytes(StandardCharsets.US_ASCII)).put(chunk.getBytes(StandardCharsets.US_ASCII))
                .putInt(payload.length).put(payload);
        return b.array();
    }

    /** A lossy WebP's header: frame tag, start code, 14-bit sizes with scale bits set (they are not the size). */
    private static byte[] webpLossy(int width, int height) {
        return riff("VP8 ", ByteBuffer.allocate(10).order(ByteOrder.LITTLE_ENDIAN).put(new byte[] {0x10, 0x02, 0x00})
                .put((byte) 0x9D).put((byte) 0x01).put((byte) 0x2A).putShort((short) (width | 0x4000))
                .putShort((short) (height | 0x8000)).array());
    }

    /** A lossless WebP's header: the signature 0x2F, then width - 1 and height - 1 in 14 bits each. */
    private static byte[] webpLossless(int width, int height) {
        int bits = (width - 1) | (height - 1) << 14;
        return riff("VP8L", ByteBuffer.allocate(5).order(ByteOrder.LITTLE_ENDIAN).put((byte) 0x2F).putInt(bits)
                .array());
    }

    /** An extended WebP's header: flags, reserved, then canvas width - 1 and height - 1 in 24 bits each. */
    private static byte[] webpExtended(int width, int height) {
        byte[] payload = new byte[10];
        payload[0] = 0x10; // alpha
        for (int i = 0; i < 3; i++) {
            payload[4 + i] = (byte) ((width - 1) >>> (8 * i));
            payload[7 + i] = (byte) ((height - 1) >>> (8 * i));
        }
        return riff("VP8X", payload);
    }

    private static Optional<ImageSize> read(byte[] bytes) {
        return ImageSize.ofBase64(Base64.getEncoder().encodeToString(bytes));
    }

    @Test
    void readsTheSizeOfRealPngJpegAndGifImages() throws IOException {
        assertEquals(Optional.of(new ImageSize(1024, 768)), read(image("png", 1024, 768)));
        assertEquals(Optional.of(new ImageSize(300, 200)), read(image("jpeg", 300, 200)));
        assertEquals(Optional.of(new ImageSize(17, 5)), read(image("gif", 17, 5)));
        assertEquals(Optional.of(new ImageSize(64, 48)), read(progressiveJpeg(64, 48)));
        assertEquals(Optional.of(new ImageSize(1, 1)), read(image("png", 1, 1)));
        assertEquals(Optional.of(new ImageSize(65_535, 3)), read(image("gif", 65_535, 3)), "the largest GIF");
    }

    @Test
    void readsHandBuiltWebpHeaders() {
        assertEquals(Optional.of(new ImageSize(1024, 768)), read(webpLossy(1024, 768)));
        assertEquals(Optional.of(new ImageSize(16_383, 1)), read(webpLossy(16_383, 1)));
        assertEquals(Optional.of(new ImageSize(400, 301)), read(webpLossless(400, 301)));
        assertEquals(Optional.of(new ImageSize(16_384, 16_384)), read(webpLossless(16_384, 16_384)));
        assertEquals(Optional.of(new ImageSize(5_000, 3)), read(webpExtended(5_000, 3)));
        assertEquals(Optional.of(new ImageSize(1 << 24, 1 << 24)), read(webpExtended(1 << 24, 1 << 24)));
    }

    @Test
    void findsAJpegFrameHeaderBehindLargeMetadataWithinTheBound() throws IOException {
        byte[] jpeg = image("jpeg", 640, 480);
        assertEquals(Optional.of(new ImageSize(640, 480)), read(withAppSegment(jpeg, 3, 65_000)));
        // Behind more metadata than the reader looks at: no size rather than reading the whole image.
        byte[] far = withAppSegment(jpeg, 5, 65_000);
        assertTrue(5 * 65_002 > ImageSize.MAX_HEADER_BYTES);
        assertEquals(Optional.empty(), read(far));
        assertEquals(Optional.of(new ImageSize(640, 480)), ImageSize.read(far), "the reader itself is not the bound");
    }

    @Test
    void base64WithLineBreaksIsRead() throws IOException {
        byte[] png = image("png", 33, 44);
        assertEquals(Optional.of(new ImageSize(33, 44)), ImageSize.ofBase64(Base64.getMimeEncoder(8,
                "\r\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(png)));
        assertEquals(Optional.empty(), ImageSize.ofBase64("iVBORw0KGgo!AAAANSUhEUgAA"), "not base64");
        assertEquals(Optional.empty(), ImageSize.ofBase64(""));
        assertEquals(Optional.empty(), ImageSize.ofBase64("A"));
    }

    @Test
    void cutHeadersGiveNoSizeAndWholeOnesDo() throws IOException {
        byte[][] images = {image("png", 70, 7), image("jpeg", 70, 7), image("gif", 70, 7), webpLossy(70, 7),
            webpLossless(70, 7), webpExtended(70, 7)};
        // The bytes up to the end of each size field (the JPEG's: its frame header's width).
        int[] needed = {24, sofEnd(images[1]), 10, 30, 25, 30};
        for (int n = 0; n < images.length; n++) {
            for (int length = 0; length <= images[n].length; length++) {
                byte[] cut = Arrays.copyOf(images[n], length);
                Optional<ImageSize> size = ImageSize.read(cut);
                assertEquals(length >= needed[n] ? Optional.of(new ImageSize(70, 7)) : Optional.empty(), size,
                        "image " + n + " cut at " + length);
                assertEquals(size, read(cut), "the same through base64, image " + n + " cut at " + length);
            }
        }
    }

    private static int sofEnd(byte[] jpeg) {
        for (int i = 0; i + 1 < jpeg.length; i++) {
            if ((jpeg[i] & 0xFF) == 0xFF && (jpeg[i + 1] & 0xFF) == 0xC0) {
                return i + 9;
            }
        }
        throw new AssertionError("no SOF0");
    }

    @Test
    void damagedHeadersGiveNoSize() throws IOException {
        byte[] png = image("png", 10, 10);
        byte[] notIhdr = png.clone();
        notIhdr[12] = 'X';
        assertEquals(Optional.empty(), ImageSize.read(notIhdr));
        byte[] zeroWidth = png.clone();
        Arrays.fill(zeroWidth, 16, 20, (byte) 0);
        assertEquals(Optional.empty(), ImageSize.read(zeroWidth));
        byte[] huge = png.clone();
        Arrays.fill(huge, 16, 20, (byte) 0xFF);
        assertEquals(Optional.empty(), ImageSize.read(huge), "over 2^31 - 1 pixels wide");

        byte[] jpeg = image("jpeg", 10, 10);
        byte[] garbage = jpeg.clone();
        garbage[2 + 2] = 0x00; // the first segment (JFIF) said to be 3 bytes long: no marker where the next is read
        garbage[2 + 3] = 0x03;
        assertEquals(Optional.empty(), ImageSize.read(garbage));
        byte[] scanFirst = {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, (byte) 0xDA, 0, 8, 1, 2, 3, 4, 5, 6};
        assertEquals(Optional.empty(), ImageSize.read(scanFirst), "scan data before any frame header");
        byte[] zeroHeight = {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, (byte) 0xC0, 0, 11, 8, 0, 0, 0, 10, 1, 1, 0x11, 0};
        assertEquals(Optional.empty(), ImageSize.read(zeroHeight), "a height set later by DNL");
        byte[] shortLength = {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, (byte) 0xE0, 0, 1, 0, 0};
        assertEquals(Optional.empty(), ImageSize.read(shortLength));

        byte[] webp = webpLossy(10, 10);
        webp[23] = 0;
        assertEquals(Optional.empty(), ImageSize.read(webp), "no start code");
        byte[] lossless = webpLossless(10, 10);
        lossless[20] = 0x2E;
        assertEquals(Optional.empty(), ImageSize.read(lossless), "no signature");
        assertEquals(Optional.empty(), ImageSize.read(riff("ALPH", new byte[20])));
        assertEquals(Optional.empty(), ImageSize.read("GIF87a\0\0\5\0".getBytes(StandardCharsets.ISO_8859_1)));
        assertEquals(Optional.empty(), ImageSize.read("BM not read".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void randomBytesNeverThrow() {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        String[] starts = {"\u0089PNG\r\n\u001a\n", "\u00FF\u00D8\u00FF", "GIF89a", "RIFF\0\0\0\0WEBPVP8 ",
            "RIFF\0\0\0\0WEBPVP8L", "RIFF\0\0\0\0WEBPVP8X", ""};
        for (int n = 0; n < 20_000; n++) {
            byte[] start = starts[n % starts.length].getBytes(StandardCharsets.ISO_8859_1);
            byte[] bytes = new byte[start.length + random.nextInt(64)];
            random.nextBytes(bytes);
            System.arraycopy(start, 0, bytes, 0, start.length);
            try {
                ImageSize.read(bytes).ifPresent(size -> assertTrue(size.width() > 0 && size.height() > 0));
                read(bytes);
            } catch (RuntimeException e) {
                throw new AssertionError("seed " + seed + ", bytes " + Arrays.toString(bytes), e);
            }
        }
    }

    @Test
    void tokensFollowTheVisionDocsRuleOfThumb() {
        assertEquals(1_049, new ImageSize(1024, 768).tokens(), "1024 * 768 / 750");
        assertEquals("1024x768, about 1,049 tokens", new ImageSize(1024, 768).describe());
        assertEquals("20x20, about 1 token", new ImageSize(20, 20).describe());
        assertEquals(1, new ImageSize(1, 1).tokens(), "never 0");
        assertEquals(54, new ImageSize(200, 200).tokens(), "the docs' table: ~54");
        assertEquals(1_334, new ImageSize(1000, 1000).tokens(), "the docs' table: ~1334");
        assertEquals(1_590, new ImageSize(1092, 1092).tokens(), "the docs' table: ~1590, the largest 1:1 not scaled");
        // The long edge scaled to 1568 first: 3136x100 is read as 1568x50.
        assertEquals(105, new ImageSize(3136, 100).tokens());
        // Larger images are scaled to about 1,600 tokens.
        assertEquals(ImageSize.MAX_TOKENS, new ImageSize(1568, 1568).tokens());
        assertEquals(ImageSize.MAX_TOKENS, new ImageSize(8000, 8000).tokens());
        assertEquals(ImageSize.MAX_TOKENS, new ImageSize(Integer.MAX_VALUE, Integer.MAX_VALUE).tokens());
        assertEquals(3, new ImageSize(Integer.MAX_VALUE, 1).tokens(), "read as 1568x1");
    }
}
