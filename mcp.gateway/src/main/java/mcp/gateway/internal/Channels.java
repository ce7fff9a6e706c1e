package mcp.gateway.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Streams over a connected socket channel, one reader and one writer at a time in parallel. Not the JDK's {@code
 * java.nio.channels.Channels} streams: for a selectable channel those hold the channel's blocking lock while a read
 * blocks, so a writer would wait for the next message from the peer, which may be waiting for that write.
 */
public final class Channels {

    /** The longest line {@link #readLine} takes: a hello or a status, never a protocol message. */
    public static final int MAX_CONTROL_LINE = 1 << 20;

    private Channels() {
    }

    /**
     * @param channel a connected channel in blocking mode
     * @return what the peer writes
     */
    public static InputStream in(SocketChannel channel) {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int n = read(one, 0, 1);
                return n < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] bytes, int offset, int length) throws IOException {
                if (length == 0) {
                    return 0;
                }
                return channel.read(ByteBuffer.wrap(bytes, offset, length));
            }

            @Override
            public void close() throws IOException {
                channel.shutdownInput();
            }
        };
    }

    /**
     * @param channel a connected channel in blocking mode
     * @return what the peer reads; closing it ends the peer's input, not the channel
     */
    public static OutputStream out(SocketChannel channel) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) throws IOException {
                ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, length);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
            }

            @Override
            public void close() throws IOException {
                if (channel.isOpen()) {
                    channel.shutdownOutput();
                }
            }
        };
    }

    /**
     * Reads one line byte by byte, so that nothing after it is taken from the stream.
     *
     * @param in the stream
     * @return the line without its end, or empty at the end of the stream
     * @throws IOException if the stream fails or the line is longer than {@link #MAX_CONTROL_LINE}
     */
    public static Optional<String> readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                return line.size() == 0 ? Optional.empty() : Optional.of(line.toString(StandardCharsets.UTF_8));
            }
            if (line.size() >= MAX_CONTROL_LINE) {
                throw new IOException("a control line over " + MAX_CONTROL_LINE + " bytes");
            }
            line.write(b);
        }
        return Optional.of(line.toString(StandardCharsets.UTF_8));
    }
}
