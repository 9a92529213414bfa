// Runs Apache Kafka's command-line tools one after the other in this JVM, each as its script
// would run it in a process of its own: its main method with the arguments given, its stdout and
// stderr captured, its exit code the one it passes to Kafka's Exit (every tool exits through it)
// or 0 when main returns. One JVM start for a list of commands instead of one per command.
//
// stdin: one JSON array per line, [main class, arg...]; stdout: one JSON object per command,
// {"code": int, "out": str, "err": str}. The tools' log4j console output is part of "err".

import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

public class ToolRunner {
    static final long COMMAND_TIMEOUT_S = 90;

    // The command's thread: where a tool would end the JVM, its thread reports the code and
    // stops for good (no catch or finally block of the tool runs after Exit, as in a real exit).
    static volatile CompletableFuture<Integer> current;

    public static void main(String[] ignored) throws Exception {
        followStderr();
        ObjectMapper json = new ObjectMapper();
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        // Kafka's Exit: org.apache.kafka.common.utils.Exit up to 4.3, ...utils.internals.Exit from
        // 4.4 on; the same methods, so it is found by name and its Procedure made as a proxy.
        Class<?> exitClass;
        try {
            exitClass = Class.forName("org.apache.kafka.common.utils.internals.Exit");
        } catch (ClassNotFoundException before44) {
            exitClass = Class.forName("org.apache.kafka.common.utils.Exit");
        }
        Class<?> procedure = Class.forName(exitClass.getName() + "$Procedure");
        Object exit = Proxy.newProxyInstance(procedure.getClassLoader(), new Class<?>[] {procedure},
            (proxy, method, args) -> {
                if (!method.getName().equals("execute")) {       // toString, hashCode, equals
                    return method.getName().equals("equals") ? proxy == args[0]
                        : method.getName().equals("hashCode") ? System.identityHashCode(proxy) : "exit";
                }
                current.complete((Integer) args[0]);
                while (true) {
                    LockSupport.park();
                }
            });
        exitClass.getMethod("setExitProcedure", procedure).invoke(null, exit);
        exitClass.getMethod("setHaltProcedure", procedure).invoke(null, exit);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String[] command = json.readValue(line, String[].class);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            CompletableFuture<Integer> done = new CompletableFuture<>();
            current = done;
            Thread thread = new Thread(() -> {
                try {
                    scalaConsoleFollows();
                    Class.forName(command[0]).getMethod("main", String[].class)
                        .invoke(null, (Object) Arrays.copyOfRange(command, 1, command.length));
                    done.complete(0);
                } catch (Throwable e) {         // what the JVM does with an uncaught exception
                    Throwable cause = e instanceof java.lang.reflect.InvocationTargetException ? e.getCause() : e;
                    System.err.print("Exception in thread \"main\" ");
                    cause.printStackTrace();
                    done.complete(1);
                }
            }, "main-" + command[0]);
            thread.setDaemon(true);
            thread.start();
            int code = done.get(COMMAND_TIMEOUT_S, TimeUnit.SECONDS);
            System.out.flush();
            System.err.flush();
            System.setOut(stdout);
            System.setErr(stderr);
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("code", code);
            result.put("out", out.toString(StandardCharsets.UTF_8));
            result.put("err", err.toString(StandardCharsets.UTF_8));
            stdout.println(json.writeValueAsString(result));
            stdout.flush();
        }
        System.exit(0);     // threads a tool left behind do not keep this JVM alive
    }

    // Scala's println (the Scala tools of Kafka 3.x: kafka.admin.ConsumerGroupCommand up to 3.7,
    // ConfigCommand up to 4.3) writes to scala.Console.out, a thread-inherited variable fixed at
    // the JVM's System.out when first used: this command's thread gets this command's streams.
    static void scalaConsoleFollows() throws Exception {
        Class<?> console;
        try {
            console = Class.forName("scala.Console$");
        } catch (ClassNotFoundException noScala) {
            return;
        }
        Object module = console.getField("MODULE$").get(null);
        console.getMethod("setOutDirect", PrintStream.class).invoke(module, System.out);
        console.getMethod("setErrDirect", PrintStream.class).invoke(module, System.err);
    }

    // The logging configuration given, with its console appender following System.err as each
    // command redirects it; set before anything logs. log4j2 (-Dlog4j2.configurationFile) from
    // Kafka 4.0, log4j 1 / reload4j (-Dlog4j.configuration=file:...) in 3.x.
    static void followStderr() throws Exception {
        String log4j2 = System.getProperty("log4j2.configurationFile");
        boolean two = log4j2 != null;
        Path given = Path.of(two ? log4j2 : System.getProperty("log4j.configuration").substring("file:".length()));
        Path following = Files.createTempFile("tool-runner-log4j", ".properties");
        following.toFile().deleteOnExit();
        Files.writeString(following, Files.readString(given)
            + (two ? "appender.stderr.follow = true\n" : "log4j.appender.stderr.Follow=true\n"));
        if (two) {
            System.setProperty("log4j2.configurationFile", following.toString());
        } else {
            System.setProperty("log4j.configuration", "file:" + following);
        }
    }
}
