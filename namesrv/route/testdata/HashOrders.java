// Generates java_hash_orders.txt: the iteration orders of java.util.HashMap
// and of its copies after random puts and removes, as the route tables'
// HashMaps see them (a topic's queue map and its HashSet copy; a broker
// group's address map and its copies). Run: java HashOrders.java > java_hash_orders.txt
import java.util.*;

public class HashOrders {
    public static void main(String[] args) {
        Random r = new Random(20261204);
        StringBuilder out = new StringBuilder();
        for (int c = 0; c < 400; c++) {
            int n = 1 + r.nextInt(c < 300 ? 12 : 40);
            int pool = n + r.nextInt(n + 1);
            HashMap<String, Integer> m = new HashMap<>();
            List<String> ops = new ArrayList<>();
            for (int i = 0; i < 3 * n; i++) {
                String k = name(r, pool);
                if (m.containsKey(k) && r.nextInt(3) == 0) {
                    m.remove(k);
                    ops.add("-" + k);
                    if (m.isEmpty()) {
                        m = new HashMap<>(); // an emptied topic leaves topicQueueTable
                    }
                } else {
                    m.put(k, i);
                    ops.add("+" + k);
                }
            }
            out.append("S ").append(String.join(" ", ops)).append(" = ")
                .append(String.join(" ", m.keySet())).append(" = ")
                .append(String.join(" ", new HashSet<>(m.keySet()))).append('\n');
        }
        for (int c = 0; c < 300; c++) {
            int n = 1 + r.nextInt(c < 250 ? 6 : 20);
            HashMap<Long, String> m = new HashMap<>();
            List<String> ops = new ArrayList<>();
            for (int i = 0; i < 3 * n; i++) {
                long id = id(r, n);
                if (m.containsKey(id) && r.nextInt(3) == 0) {
                    m.remove(id);
                    ops.add("-" + id);
                } else {
                    m.put(id, "a" + i);
                    ops.add("+" + id);
                }
            }
            HashMap<Long, String> putAll = new HashMap<>();
            putAll.putAll(m);
            out.append("L ").append(String.join(" ", ops)).append(" = ")
                .append(join(m.keySet())).append(" = ")
                .append(join(new HashMap<>(m).keySet())).append(" = ")
                .append(join(putAll.keySet())).append('\n');
        }
        System.out.print(out);
    }

    static String name(Random r, int pool) {
        int i = r.nextInt(pool);
        switch (r.nextInt(4)) {
            case 0: return "broker-" + (char) ('a' + i % 26) + (i / 26);
            case 1: return "b" + i;
            case 2: return "rmq-broker-" + i + ".ns";
            default: return "g" + (i * 16);
        }
    }

    static long id(Random r, int n) {
        switch (r.nextInt(4)) {
            case 0: return r.nextInt(n + 2) - 1;
            case 1: return 16L * r.nextInt(4);
            case 2: return -1L - r.nextInt(3);
            default: return (1L << 32) + r.nextInt(3);
        }
    }

    static String join(Set<Long> s) {
        StringBuilder b = new StringBuilder();
        for (Long v : s) {
            if (b.length() > 0) b.append(' ');
            b.append(v);
        }
        return b.toString();
    }
}
