// Pink tulips: three cupped blooms of layered pink petals on curving stems, long leaves.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

function petal(x, y, ang, len, wide) {
  brush.beginShape(0.8);
  brush.vertex(x, y);
  brush.vertex(x + len * 0.55 * cos(ang - wide), y + len * 0.55 * sin(ang - wide));
  brush.vertex(x + len * cos(ang), y + len * sin(ang));
  brush.vertex(x + len * 0.55 * cos(ang + wide), y + len * 0.55 * sin(ang + wide));
  brush.endShape(CLOSE);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(250, 246, 238);
  brush.noStroke();
  const heads = [[200, 220], [320, 170], [430, 250]];
  for (const [x, y] of heads) {
    wash("#5e8c4e", 190, 0.1, 0.3, 0.4);
    brush.beginShape(0.7);
    brush.vertex(x - 3, y + 40);
    brush.vertex(300 + (x - 300) * 0.3, 580);
    brush.vertex(300 + (x - 300) * 0.3 + 6, 580);
    brush.vertex(x + 3, y + 40);
    brush.endShape(CLOSE);
  }
  wash("#79a55e", 170, 0.35, 0.5, 0.6);
  petal(260, 580, -HALF_PI - 0.35, 260, 0.12);
  petal(350, 580, -HALF_PI + 0.4, 230, 0.12);
  for (const [x, y] of heads) {
    wash("#f3a6bf", 190, 0.35, 0.5, 0.6);
    petal(x, y + 45, -HALF_PI - 0.25, 95, 0.35);
    petal(x, y + 45, -HALF_PI + 0.25, 95, 0.35);
    wash("#e0708f", 170, 0.3, 0.5, 0.6);
    petal(x, y + 45, -HALF_PI, 85, 0.3);
    wash("#c8456a", 120, 0.3, 0.5, 0.6);
    petal(x - 8, y + 45, -HALF_PI - 0.1, 60, 0.2);
  }
}
