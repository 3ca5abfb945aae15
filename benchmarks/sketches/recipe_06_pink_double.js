// A pale pink double hibiscus: an outer ring of eight petals and an inner ring of five.
function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(3);
  noLoop();
}

function ring(n, r, w, offset) {
  for (let k = 0; k < n; k++) {
    const a = offset + (k * TWO_PI) / n;
    brush.beginShape(0.7);
    brush.vertex(300, 300);
    for (let i = 0; i <= 6; i++) {
      const t = -w + (2 * w * i) / 6;
      const rr = r + 10 * sin(i * 2.9 + k);
      brush.vertex(300 + rr * cos(a + t), 300 + rr * sin(a + t));
    }
    brush.endShape(true);
  }
}

function draw() {
  translate(-width / 2, -height / 2);
  background(248, 246, 242);
  brush.noStroke();
  brush.fillBleed(0.35);
  brush.fillTexture(0.55, 0.45);
  brush.fill(244, 170, 190, 170);
  ring(8, 215, 0.42, 0.1);
  brush.fillBleed(0.25);
  brush.fill(236, 120, 160, 150);
  ring(5, 130, 0.55, 0.4);
  brush.fillBleed(0.2);
  brush.fillTexture(0.5, 0.5);
  brush.fill(196, 50, 100, 200);
  brush.circle(300, 300, 36, true);
  brush.fill(250, 236, 170, 230);
  brush.fillBleed(0.05);
  for (let i = 0; i < 7; i++) {
    brush.circle(300 + 20 * cos(i * 0.9), 300 + 20 * sin(i * 0.9), 5, true);
  }
}
